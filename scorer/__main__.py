from scorer.entry import main

raise SystemExit(main())
