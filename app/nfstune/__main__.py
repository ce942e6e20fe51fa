from nfstune.cli.main import main

raise SystemExit(main())
