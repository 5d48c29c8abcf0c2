module gotextoracle

go 1.26.0

require github.com/hashicorp/go-version v1.8.0
