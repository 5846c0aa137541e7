from scorer.main import main

raise SystemExit(main())
