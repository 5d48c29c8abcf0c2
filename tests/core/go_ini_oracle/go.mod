module goinioracle

go 1.26.0

require github.com/go-ini/ini v1.67.0

require github.com/stretchr/testify v1.12.1 // indirect
