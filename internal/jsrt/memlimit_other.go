//go:build !unix

package jsrt

func memoryBackstop() int64 { return 0 }
