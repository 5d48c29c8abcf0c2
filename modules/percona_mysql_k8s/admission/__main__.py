import sys

from percona_mysql_k8s.admission.cli import main

sys.exit(main())
