from nfstune.cli import main

raise SystemExit(main())
