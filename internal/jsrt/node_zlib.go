package jsrt

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"hash/crc32"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/dop251/goja"
)

// The Go half of node:zlib: deflate, zlib and gzip, both ways, over Go's
// compress packages, with zlib's errors (its messages and codes, which
// node/zlib.js turns into Node's errors).
//
// What a decompression makes is bounded: past its limit (the script's
// maxOutputLength, at most half the memory budget) it stops, before it
// holds more than that, and fails with ERR_BUFFER_TOO_LARGE; a gzip bomb
// costs what the limit allows and no more. A compression stops at the
// limit too. The sync forms run on the loop and give up when the job is
// interrupted; the callback forms run off it, in a pool of four, their
// input copied and counted against MaxHeldBytes.
//
// Differences from zlib: the compressed bytes are Go's (any zlib reads
// them, but they are not zlib's bytes); windowBits, memLevel and the
// strategies but Z_HUFFMAN_ONLY do not change them; a corrupt deflate
// stream may be reported with another of zlib's messages than zlib would
// choose; with a finishFlush other than Z_FINISH, a truncated stream
// gives what was decoded up to its last whole block.

// Node's modes.
const (
	zDeflate    = 1
	zInflate    = 2
	zGzip       = 3
	zGunzip     = 4
	zDeflateRaw = 5
	zInflateRaw = 6
	zUnzip      = 7
)

// zlibWorkers is how many callback-form operations one runtime runs at once.
const zlibWorkers = 4

// maxZlibStreams is how many decompressing streams one runtime holds at
// once: each has a goroutine and a window of its own until it ends.
const maxZlibStreams = 64

// zlibError is an error as zlib reports it: its message and code.
type zlibError struct {
	msg   string
	errno int // Z_DATA_ERROR -3, Z_BUF_ERROR -5, Z_NEED_DICT 2
}

func (e *zlibError) Error() string { return e.msg }

var (
	errUnexpectedEnd = &zlibError{"unexpected end of file", -5}
	errHeaderCheck   = &zlibError{"incorrect header check", -3}
	errDataCheck     = &zlibError{"incorrect data check", -3}
)

// errTooLarge is an output past its limit (ERR_BUFFER_TOO_LARGE).
type errTooLarge struct{ limit int64 }

func (e *errTooLarge) Error() string { return "output too large" }

// zlibOptions are what an operation needs of Node's options.
type zlibOptions struct {
	mode     int
	level    int
	strategy int
	dict     []byte
	limit    int64 // the most output bytes
	finish   int   // finishFlush: Z_FINISH (4) ends the stream; others flush it (compressing) or take a truncated one (decompressing)
}

// limitedBuffer collects output up to limit bytes, its memory never more
// than the limit (a bytes.Buffer may double past it).
type limitedBuffer struct {
	buf   []byte
	limit int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := int64(len(b.buf)) + int64(len(p))
	if n > b.limit {
		return 0, &errTooLarge{b.limit}
	}
	if n > int64(cap(b.buf)) {
		grown := make([]byte, len(b.buf), min(max(2*int64(cap(b.buf)), n, 512), b.limit))
		copy(grown, b.buf)
		b.buf = grown
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *limitedBuffer) Bytes() []byte { return b.buf }
func (b *limitedBuffer) Reset()        { b.buf = nil }

// zlibCompress compresses in as o.mode says, checking stop between
// pieces of a megabyte.
func zlibCompress(o zlibOptions, in []byte, stop func() bool) ([]byte, error) {
	out := &limitedBuffer{limit: o.limit}
	w, err := newCompressor(o, out)
	if err != nil {
		return nil, err
	}
	for len(in) > 0 {
		if stop() {
			return nil, errStopped
		}
		n := min(len(in), 1<<20)
		if _, err := w.Write(in[:n]); err != nil {
			return nil, err
		}
		in = in[n:]
	}
	switch o.finish {
	case 4: // Z_FINISH
		err = w.Close()
	case 0: // Z_NO_FLUSH: what the compressor let out so far
	default:
		err = w.(interface{ Flush() error }).Flush()
	}
	if err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func flateLevel(o zlibOptions) int {
	if o.strategy == 2 { // Z_HUFFMAN_ONLY
		return flate.HuffmanOnly
	}
	return o.level
}

func newCompressor(o zlibOptions, out io.Writer) (io.WriteCloser, error) {
	level := flateLevel(o)
	switch o.mode {
	case zDeflate:
		// the header's FLEVEL as zlib writes it, which counts Z_RLE and
		// Z_FIXED as fastest (Go knows no strategies)
		if o.strategy >= 2 {
			out = &zlibHeaderWriter{w: out}
		}
		if o.dict != nil {
			return zlib.NewWriterLevelDict(out, level, o.dict)
		}
		return zlib.NewWriterLevel(out, level)
	case zGzip:
		// the header's XFL as zlib writes it: 2 for level 9, 4 for the
		// fastest levels and strategies (Go writes 4 for level 1 only)
		xfl := byte(0)
		switch {
		case o.level == 9:
			xfl = 2
		case o.strategy >= 2 || (o.level >= 0 && o.level < 2):
			xfl = 4
		}
		w, err := gzip.NewWriterLevel(&xflWriter{w: out, xfl: xfl}, level)
		if err != nil {
			return nil, err
		}
		w.OS = 3 // Unix, as zlib writes it
		return w, nil
	case zDeflateRaw:
		return flate.NewWriterDict(out, level, o.dict)
	}
	return nil, errors.New("zlib: not a compression mode")
}

// xflWriter sets the XFL byte of the gzip header, the first ten bytes
// written through it.
type xflWriter struct {
	w       io.Writer
	xfl     byte
	started bool
}

func (x *xflWriter) Write(p []byte) (int, error) {
	if !x.started && len(p) >= 10 {
		x.started = true
		h := bytes.Clone(p)
		h[8] = x.xfl
		return x.w.Write(h)
	}
	x.started = true
	return x.w.Write(p)
}

// zlibHeaderWriter rewrites the zlib header, the first two bytes written
// through it, with FLEVEL 0 (fastest).
type zlibHeaderWriter struct {
	w       io.Writer
	started bool
}

func (z *zlibHeaderWriter) Write(p []byte) (int, error) {
	if !z.started && len(p) >= 2 {
		z.started = true
		h := bytes.Clone(p)
		h[1] &= 0x20 // FDICT
		h[1] += byte(31 - (uint16(h[0])<<8|uint16(h[1]))%31)
		return z.w.Write(h)
	}
	z.started = true
	return z.w.Write(p)
}

// stopReader reads r, failing with errStopped once stop says so.
type stopReader struct {
	r    io.Reader
	stop func() bool
	n    int
}

func (s *stopReader) Read(p []byte) (int, error) {
	if s.n++; s.n&63 == 0 && s.stop() {
		return 0, errStopped
	}
	return s.r.Read(p)
}

// zlibDecompress decompresses in as o.mode says, at most o.limit bytes.
func zlibDecompress(o zlibOptions, in []byte, stop func() bool) ([]byte, error) {
	out := &limitedBuffer{limit: o.limit}
	err := decompressInto(out, o, in, stop)
	if err == errUnexpectedEnd && o.finish != 4 {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// decompressInto writes what in decompresses to into out.
func decompressInto(out io.Writer, o zlibOptions, in []byte, stop func() bool) error {
	src := bytes.NewReader(in)
	mode := o.mode
	if mode == zUnzip {
		mode = zInflate
		if src.Len() < 2 {
			return errUnexpectedEnd
		}
		var magic [2]byte
		src.ReadAt(magic[:], 0)
		if magic == [2]byte{0x1f, 0x8b} {
			mode = zGunzip
		}
	}
	switch mode {
	case zInflate:
		if err := checkZlibHeader(src, o.dict); err != nil {
			return err
		}
		sum := adler32.New()
		if err := inflateRaw(io.MultiWriter(out, sum), src, in, o.dict, stop); err != nil {
			return err
		}
		var trailer [4]byte
		if _, err := io.ReadFull(src, trailer[:]); err != nil {
			return errUnexpectedEnd
		}
		if binary.BigEndian.Uint32(trailer[:]) != sum.Sum32() {
			return errDataCheck
		}
		return nil
	case zGunzip:
		return gunzipMembers(out, src, in, stop)
	case zInflateRaw:
		return inflateRaw(out, src, in, o.dict, stop)
	}
	return errors.New("zlib: not a decompression mode")
}

// checkZlibHeader reads a zlib header (RFC 1950) as zlib checks it.
func checkZlibHeader(src *bytes.Reader, dict []byte) error {
	var h [2]byte
	if _, err := io.ReadFull(src, h[:]); err != nil {
		return errUnexpectedEnd
	}
	switch {
	case binary.BigEndian.Uint16(h[:])%31 != 0:
		return errHeaderCheck
	case h[0]&0x0f != 8:
		return &zlibError{"unknown compression method", -3}
	case h[0]>>4 > 7:
		return &zlibError{"invalid window size", -3}
	}
	if h[1]&0x20 != 0 {
		var id [4]byte
		if _, err := io.ReadFull(src, id[:]); err != nil {
			return errUnexpectedEnd
		}
		if dict == nil {
			return &zlibError{"Missing dictionary", 2}
		}
		if binary.BigEndian.Uint32(id[:]) != adler32.Checksum(dict) {
			return &zlibError{"Bad dictionary", 2}
		}
	}
	return nil
}

// inflateRaw decompresses one deflate stream (RFC 1951) from src, a
// reader of in, which it reads no further than the stream's end.
func inflateRaw(out io.Writer, src *bytes.Reader, in, dict []byte, stop func() bool) error {
	start := len(in) - src.Len()
	fr := flate.NewReaderDict(src, dict) // src is an io.ByteReader: no read ahead
	defer fr.Close()
	_, err := io.Copy(out, &stopReader{r: fr, stop: stop})
	if err == nil {
		return nil
	}
	var tooLarge *errTooLarge
	if errors.As(err, &tooLarge) || errors.Is(err, errStopped) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errUnexpectedEnd
	}
	return flateError(in[start:])
}

// flateError names a corrupt deflate stream as zlib would, from its first
// block's header: zlib says which table or length it found invalid, and
// Go's reader only where.
func flateError(stream []byte) error {
	if len(stream) > 0 {
		switch stream[0] >> 1 & 3 {
		case 3:
			return &zlibError{"invalid block type", -3}
		case 0:
			if len(stream) >= 5 && binary.LittleEndian.Uint16(stream[1:]) != ^binary.LittleEndian.Uint16(stream[3:]) {
				return &zlibError{"invalid stored block lengths", -3}
			}
		case 2:
			return &zlibError{"invalid code lengths set", -3}
		}
	}
	return &zlibError{"invalid distance too far back", -3}
}

// gunzipMembers decompresses the gzip members of src (RFC 1952), one
// after another, as zlib does: what follows a member is another member,
// unless it begins with a zero byte (padding, ignored).
func gunzipMembers(out io.Writer, src *bytes.Reader, in []byte, stop func() bool) error {
	for first := true; ; first = false {
		if !first {
			if src.Len() == 0 {
				return nil
			}
			if b, _ := src.ReadByte(); b == 0 {
				return nil
			}
			src.UnreadByte()
		}
		if err := readGzipHeader(src); err != nil {
			return err
		}
		sum := crc32.NewIEEE()
		counter := &countWriter{}
		if err := inflateRaw(io.MultiWriter(out, sum, counter), src, in, nil, stop); err != nil {
			return err
		}
		var trailer [8]byte
		if _, err := io.ReadFull(src, trailer[:]); err != nil {
			return errUnexpectedEnd
		}
		if binary.LittleEndian.Uint32(trailer[:4]) != sum.Sum32() {
			return errDataCheck
		}
		if binary.LittleEndian.Uint32(trailer[4:]) != uint32(counter.n) {
			return &zlibError{"incorrect length check", -3}
		}
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func readGzipHeader(src *bytes.Reader) error {
	var h [10]byte
	n, _ := io.ReadFull(src, h[:])
	switch {
	case n >= 1 && h[0] != 0x1f, n >= 2 && h[1] != 0x8b:
		return errHeaderCheck
	case n < 10:
		return errUnexpectedEnd
	case h[2] != 8:
		return &zlibError{"unknown compression method", -3}
	case h[3]&0xe0 != 0:
		return &zlibError{"unknown header flags set", -3}
	}
	flags := h[3]
	crc := crc32.NewIEEE()
	crc.Write(h[:])
	read := func(n int) ([]byte, error) {
		b := make([]byte, n)
		if _, err := io.ReadFull(src, b); err != nil {
			return nil, errUnexpectedEnd
		}
		crc.Write(b)
		return b, nil
	}
	if flags&4 != 0 { // FEXTRA
		l, err := read(2)
		if err != nil {
			return err
		}
		if _, err := read(int(binary.LittleEndian.Uint16(l))); err != nil {
			return err
		}
	}
	for _, f := range []byte{8, 16} { // FNAME, FCOMMENT: zero-terminated
		if flags&f == 0 {
			continue
		}
		for {
			b, err := read(1)
			if err != nil {
				return err
			}
			if b[0] == 0 {
				break
			}
		}
	}
	if flags&2 != 0 { // FHCRC
		want := uint16(crc.Sum32())
		b, err := read(2)
		if err != nil {
			return err
		}
		if binary.LittleEndian.Uint16(b) != want {
			return &zlibError{"header crc mismatch", -3}
		}
	}
	return nil
}

func zlibHost(r *Runtime) (*goja.Object, error) {
	h := r.vm.NewObject()
	pool := &hostPool{what: "zlib", limit: zlibWorkers}
	var streams atomic.Int32
	h.Set("maxOutput", min(r.maxRead(), 1<<32))
	// process(mode, input, level, strategy, dictionary|null, limit,
	// finishFlush, async) → Buffer bytes (ArrayBuffer), a promise of them,
	// or an error result (see zlibResult)
	h.Set("process", func(c goja.FunctionCall) goja.Value {
		o := r.zlibOptions(c, 0)
		in := r.viewBytes(c.Argument(1))
		if !c.Argument(7).ToBoolean() {
			out, err := zlibRun(o, in, r.interrupted.Load)
			if errors.Is(err, errStopped) {
				return goja.Undefined() // the VM unwinds with the interrupt
			}
			return r.zlibResult(out, err)
		}
		in = append([]byte(nil), in...) // the script may change it meanwhile
		p := r.async(pool, len(in), func() (any, error) {
			out, err := zlibRun(o, in, r.closing)
			if err != nil && !errors.Is(err, errStopped) {
				return err, nil // settled as a result: node/zlib.js makes the error
			}
			return out, err
		}, func(v any) goja.Value {
			if err, ok := v.(error); ok {
				return r.zlibResult(nil, err)
			}
			return r.zlibResult(v.([]byte), nil)
		})
		return r.vm.ToValue(p)
	})
	// crc32(view, value) → the CRC-32 of view, continuing value
	h.Set("crc32", func(c goja.FunctionCall) goja.Value {
		return r.vm.ToValue(crc32.Update(uint32(c.Argument(1).ToInteger()), crc32.IEEETable, r.viewBytes(c.Argument(0))))
	})
	r.zlibStreamHost(h, &streams)
	return h, nil
}

func init() { nodeHosts["zlib"] = zlibHost }

// zlibOptions reads (mode, _, level, strategy, dictionary, limit,
// finishFlush) from the arguments at base.
func (r *Runtime) zlibOptions(c goja.FunctionCall, base int) zlibOptions {
	o := zlibOptions{
		mode:     int(c.Argument(base).ToInteger()),
		level:    int(c.Argument(base + 2).ToInteger()),
		strategy: int(c.Argument(base + 3).ToInteger()),
		limit:    c.Argument(base + 5).ToInteger(),
		finish:   int(c.Argument(base + 6).ToInteger()),
	}
	if d := c.Argument(base + 4); !goja.IsNull(d) && !goja.IsUndefined(d) {
		o.dict = append([]byte(nil), r.viewBytes(d)...)
	}
	return o
}

func zlibRun(o zlibOptions, in []byte, stop func() bool) ([]byte, error) {
	switch o.mode {
	case zDeflate, zGzip, zDeflateRaw:
		return zlibCompress(o, in, stop)
	}
	return zlibDecompress(o, in, stop)
}

// zlibResult is the value node/zlib.js reads: the output as an
// ArrayBuffer, or [message, errno] for zlib's errors, or [limit] past
// the output limit.
func (r *Runtime) zlibResult(out []byte, err error) goja.Value {
	if err == nil {
		return r.vm.ToValue(r.vm.NewArrayBuffer(out))
	}
	var ze *zlibError
	if errors.As(err, &ze) {
		return r.vm.ToValue([]any{ze.msg, ze.errno})
	}
	var tl *errTooLarge
	if errors.As(err, &tl) {
		return r.vm.ToValue([]any{tl.limit})
	}
	panic(r.vm.NewGoError(err))
}

// Streams: a compressor writes into a buffer the loop empties after each
// call; a decompressor runs on a goroutine of its own, fed a chunk at a
// time, the loop waiting for it to want more (Go's readers pull their
// input; the stream's is pushed).

type zstream struct {
	o     zlibOptions
	comp  io.WriteCloser
	cbuf  *limitedBuffer
	in    chan []byte   // chunks for the decompressor; closed at the end
	ack   chan struct{} // the decompressor took all it was given, or ended
	out   limitedBuffer // the decompressor's output since the last take
	gone  chan struct{} // closed when the stream is closed before its end
	shut  bool          // closed (loop only)
	done  atomic.Bool   // the decompressor ended
	err   error         // … with this error
	count *atomic.Int32 // the runtime's decompressing streams
	held  atomic.Bool   // this stream counts in count
}

// release takes the stream out of the count, once, whether its
// decompressor ends or it is closed first.
func (z *zstream) release() {
	if z.held.CompareAndSwap(true, false) {
		z.count.Add(-1)
	}
}

// chanReader feeds the decompressor the chunks the loop sends it.
type chanReader struct {
	z      *zstream
	chunk  []byte
	closed <-chan struct{}
}

func (c *chanReader) Read(p []byte) (int, error) {
	for len(c.chunk) == 0 {
		select { // all taken: the loop may send more
		case c.z.ack <- struct{}{}:
		case <-c.z.gone:
			return 0, errStopped
		case <-c.closed:
			return 0, errStopped
		}
		select {
		case b, ok := <-c.z.in:
			if !ok {
				return 0, io.EOF
			}
			c.chunk = b
		case <-c.z.gone:
			return 0, errStopped
		case <-c.closed:
			return 0, errStopped
		}
	}
	n := copy(p, c.chunk)
	c.chunk = c.chunk[n:]
	return n, nil
}

// ByteReader, so that the deflate reader reads no further than its
// stream's end.
func (c *chanReader) ReadByte() (byte, error) {
	var b [1]byte
	if _, err := c.Read(b[:]); err != nil {
		return 0, err
	}
	return b[0], nil
}

func (z *zstream) run(closed <-chan struct{}) {
	defer z.release()
	src := &chanReader{z: z, closed: closed}
	// the whole input is not known: decompress from a reader that the
	// members and trailers are read from as they come
	err := decompressStream(&z.out, z.o, src)
	if err == errUnexpectedEnd && z.o.finish != 4 {
		err = nil
	}
	z.err = err
	z.done.Store(true)
	select {
	case z.ack <- struct{}{}:
	case <-z.gone:
	case <-closed:
	}
}

// decompressStream is decompressInto for a stream: it reads src as it
// comes, and ends at the end of the (last) member.
func decompressStream(out io.Writer, o zlibOptions, src *chanReader) error {
	var rd io.Reader
	var err error
	switch o.mode {
	case zInflate, zUnzip, zGunzip:
		// the first two bytes say which header follows, and whether it
		// is one: refused as soon as they come, as zlib refuses them
		head := make([]byte, 2)
		if n, _ := io.ReadFull(src, head); n < 2 {
			if n == 1 && o.mode == zGunzip && head[0] != 0x1f {
				return errHeaderCheck
			}
			return errUnexpectedEnd
		}
		mr := byteReader{io.MultiReader(bytes.NewReader(head), src)}
		gz := head[0] == 0x1f && head[1] == 0x8b
		switch {
		case o.mode == zGunzip && !gz:
			return errHeaderCheck
		case o.mode == zGunzip, o.mode == zUnzip && gz:
			rd, err = gzip.NewReader(mr)
		default:
			// (a dictionary's id, past these two bytes, is the zlib
			// reader's to check: errUnexpectedEnd here)
			if err := checkZlibHeader(bytes.NewReader(head), nil); err != nil && err != errUnexpectedEnd {
				return err
			}
			rd, err = zlib.NewReaderDict(mr, o.dict)
		}
	case zInflateRaw:
		rd = flate.NewReaderDict(src, o.dict)
	}
	if err != nil {
		return streamError(err, o.dict)
	}
	_, err = io.Copy(out, rd)
	return streamError(err, o.dict)
}

// byteReader reads a byte at a time if asked: the readers then read no
// further than the stream.
type byteReader struct{ io.Reader }

func (b byteReader) ReadByte() (byte, error) {
	var x [1]byte
	if _, err := io.ReadFull(b.Reader, x[:]); err != nil {
		return 0, err
	}
	return x[0], nil
}

// streamError maps the errors of Go's readers to zlib's.
func streamError(err error, dict []byte) error {
	var tl *errTooLarge
	switch {
	case err == nil, errors.As(err, &tl), errors.Is(err, errStopped):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errUnexpectedEnd
	case errors.Is(err, zlib.ErrHeader), errors.Is(err, gzip.ErrHeader):
		return errHeaderCheck
	case errors.Is(err, zlib.ErrChecksum), errors.Is(err, gzip.ErrChecksum):
		return errDataCheck
	case errors.Is(err, zlib.ErrDictionary):
		if dict == nil {
			return &zlibError{"Missing dictionary", 2}
		}
		return &zlibError{"Bad dictionary", 2}
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return &zlibError{"invalid distance too far back", -3}
	}
	return err
}

func (r *Runtime) zlibStreamHost(h *goja.Object, count *atomic.Int32) {
	handle := func(v goja.Value) *zstream {
		z, ok := v.Export().(*zstream)
		if !ok {
			panic(r.vm.NewTypeError("zlib: not a stream"))
		}
		return z
	}
	// streamNew(mode, _, level, strategy, dictionary|null, limit,
	// finishFlush) → handle; limit bounds what one write makes
	h.Set("streamNew", func(c goja.FunctionCall) goja.Value {
		o := r.zlibOptions(c, 0)
		z := &zstream{o: o, count: count}
		switch o.mode {
		case zDeflate, zGzip, zDeflateRaw:
			z.cbuf = &limitedBuffer{limit: o.limit}
			w, err := newCompressor(o, z.cbuf)
			if err != nil {
				panic(r.vm.NewGoError(err))
			}
			z.comp = w
		default:
			z.out.limit = o.limit
		}
		return r.vm.ToValue(z)
	})
	// streamWrite(handle, view, flush, end) → the output so far, or an
	// error result as zlibResult's; flush: 0 none, 2 sync, 3 full
	h.Set("streamWrite", func(c goja.FunctionCall) goja.Value {
		z := handle(c.Argument(0))
		if z.shut {
			panic(r.vm.NewTypeError("zlib: write after close"))
		}
		in := r.viewBytes(c.Argument(1))
		flush, end := c.Argument(2).ToInteger(), c.Argument(3).ToBoolean()
		if z.comp != nil {
			_, err := z.comp.Write(in)
			if err == nil && end {
				err = z.comp.Close()
			} else if err == nil && flush != 0 {
				err = z.comp.(interface{ Flush() error }).Flush()
			}
			out := z.cbuf.Bytes() // handed over: the buffer starts afresh
			z.cbuf.Reset()
			return r.zlibResult(out, err)
		}
		if z.in == nil { // first write: start the decompressor
			if count.Add(1) > maxZlibStreams {
				count.Add(-1)
				panic(r.RangeError("zlib: this plugin already decompresses " + strconv.Itoa(maxZlibStreams) + " streams, the most one plugin may; end some first"))
			}
			z.held.Store(true)
			z.in, z.ack, z.gone = make(chan []byte), make(chan struct{}), make(chan struct{})
			go z.run(r.closed)
			<-z.ack // it waits for its first input
		}
		if !z.done.Load() && len(in) > 0 {
			z.in <- bytes.Clone(in)
			<-z.ack
		}
		if end && !z.done.Load() {
			close(z.in)
			<-z.ack
		}
		out := z.out.Bytes() // handed over, as above
		z.out.Reset()
		if z.done.Load() && z.err != nil {
			return r.zlibResult(nil, z.err)
		}
		return r.zlibResult(out, nil)
	})
	// streamClose(handle): the stream is destroyed; its decompressor, if
	// running, ends
	h.Set("streamClose", func(c goja.FunctionCall) goja.Value {
		z := handle(c.Argument(0))
		z.shut = true
		z.release()
		if z.gone != nil && !z.done.Load() {
			select {
			case <-z.gone:
			default:
				close(z.gone)
			}
		}
		return goja.Undefined()
	})
}
