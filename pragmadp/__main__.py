from pragmadp.cli import main

raise SystemExit(main())
