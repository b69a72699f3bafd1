//go:build !unix

package jsrt

const openNonBlock = 0
