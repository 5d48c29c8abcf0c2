"""The pure core: no pulumi import anywhere below this package (checked by import-linter)."""
