"""``percona-mysql-grade``: a live cluster graded, rule by rule, against the sizing it was given."""
