package jsrt

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// bomb is what n bytes of zeros (n a multiple of 1 MiB) compress to, as
// mode makes them. It repeats the blocks of one compressed MiB, ended by
// a sync flush (which byte-aligns them), rather than compressing n bytes:
// the race detector makes that take a minute.
func bomb(t testing.TB, mode int, n int) []byte {
	t.Helper()
	var mib bytes.Buffer
	w, _ := flate.NewWriter(&mib, flate.BestCompression)
	w.Write(make([]byte, 1<<20))
	w.Flush()
	raw := append(bytes.Repeat(mib.Bytes(), n>>20), 0x03, 0x00) // and an empty final block
	switch mode {
	case zGzip:
		out := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}, raw...)
		out = binary.LittleEndian.AppendUint32(out, 0) // not its CRC, which is read only past the limit
		return binary.LittleEndian.AppendUint32(out, uint32(n))
	case zDeflate:
		out := append([]byte{0x78, 0x9c}, raw...)
		return binary.BigEndian.AppendUint32(out, uint32(n%65521)<<16|1) // Adler-32 of n zeros
	}
	return raw
}

// A decompression bomb is refused once its output passes half the
// memory budget (or maxOutputLength), before it holds more: a gzip of
// 100 MiB of zeros costs a runtime with a 16 MiB budget 8 MiB, in every
// form, and the runtime goes on working.
func TestZlibBombIsRefused(t *testing.T) {
	r, _ := newRT(t, "", withMemory(16))
	withRequire(t, r)
	if err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		_, err := vm.RunString(`
			var zlib = require("zlib");
			function inflate(name, input, opts) {
				try { return name + ": " + zlib[name](Buffer.from(input), opts).length; } catch (e) { return name + ": " + e.name + " " + e.code + " " + e.message; }
			}
			function inflateAsync(name, input) {
				return new Promise((resolve) => zlib[name](Buffer.from(input), (e, b) => resolve(name + ": " + (e ? e.name + " " + e.code + " " + e.message : b.length))));
			}`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const refused = "RangeError ERR_BUFFER_TOO_LARGE Cannot create a Buffer larger than 8388608 bytes"
	gz, zl, raw := bomb(t, zGzip, 100<<20), bomb(t, zDeflate, 100<<20), bomb(t, zDeflateRaw, 100<<20)
	for _, c := range []struct {
		fn    string
		input []byte
		opts  any
	}{
		{"gunzipSync", gz, nil}, {"unzipSync", gz, nil}, {"inflateSync", zl, nil}, {"unzipSync", zl, nil}, {"inflateRawSync", raw, nil},
		{"gunzipSync", gz, map[string]any{"maxOutputLength": 1 << 32}},
		{"gunzipSync", bytes.Repeat(gz, 3), nil},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		v, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
			fn, _ := goja.AssertFunction(vm.Get("inflate"))
			return fn(goja.Undefined(), vm.ToValue(c.fn), vm.ToValue(vm.NewArrayBuffer(c.input)), vm.ToValue(c.opts))
		}, nil)
		runtime.ReadMemStats(&after)
		if want := c.fn + ": " + refused; err != nil || v != want {
			t.Errorf("%s: %v %v, want %s", c.fn, v, err, want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 48<<20 {
			t.Errorf("%s allocated %d MiB", c.fn, grew>>20)
		}
	}
	for _, fn := range []string{"gunzip", "unzip"} {
		v, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
			f, _ := goja.AssertFunction(vm.Get("inflateAsync"))
			return f(goja.Undefined(), vm.ToValue(fn), vm.ToValue(vm.NewArrayBuffer(gz)))
		}, nil)
		if want := fn + ": " + refused; err != nil || v != want {
			t.Errorf("%s: %v %v, want %s", fn, v, err, want)
		}
	}
	v, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
		return vm.RunString(`zlib.gunzipSync(zlib.gzipSync("still here")).toString() + " " + zlib.inflateSync(zlib.deflateSync(Buffer.alloc(4 << 20))).length`)
	}, nil)
	if err != nil || v != "still here 4194304" {
		t.Errorf("after the bombs: %v %v", v, err)
	}
}

// A compression or decompression on the loop gives up when stop says so.
func TestZlibStops(t *testing.T) {
	stop := func() bool { return true }
	in := make([]byte, 3<<20)
	if _, err := zlibCompress(zlibOptions{mode: zGzip, level: -1, limit: 1 << 30, finish: 4}, in, stop); !errors.Is(err, errStopped) {
		t.Errorf("compress: %v", err)
	}
	z := bomb(t, zDeflate, 8<<20)
	if _, err := zlibDecompress(zlibOptions{mode: zInflate, limit: 1 << 30, finish: 4}, z, stop); !errors.Is(err, errStopped) {
		t.Errorf("decompress: %v", err)
	}
}

// A minimal node:stream Transform, enough for the zlib streams to run in
// these tests without node:stream.
const fakeStream = `({
	Transform: class Transform {
		constructor(opts) { this.chunks = []; this.listeners = {}; this.destroyed = false; }
		push(b) { this.chunks.push(b); return true; }
		on(ev, fn) { (this.listeners[ev] = this.listeners[ev] || []).push(fn); return this; }
		once(ev, fn) { return this.on(ev, fn); }
		emit(ev, ...a) { for (const f of this.listeners[ev] || []) f(...a); }
		write(chunk) { let err; this._transform(chunk, "buffer", (e) => { err = e; }); if (err) this.emit("error", err); return !err; }
		end(chunk) { if (chunk !== undefined) this.write(chunk); this._flush((e) => { if (e) this.emit("error", e); else this.emit("end"); }); }
		destroy(err) { this.destroyed = true; this._destroy(err || null, () => this.emit("close")); }
		output() { return Buffer.concat(this.chunks); }
	},
})`

func withFakeStream(t *testing.T, r *Runtime) {
	t.Helper()
	if err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		v, err := vm.RunString(fakeStream)
		r.host.node["stream"] = v
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// The streams compress a piece at a time and decompress what they are
// fed as it comes, whatever the cut; a write that would make more than
// half the budget fails; a runtime holds at most maxZlibStreams
// decompressors, each ended by end, destroy or the runtime's close.
func TestZlibStreams(t *testing.T) {
	r, _ := newRT(t, "", withMemory(16))
	withRequire(t, r)
	withFakeStream(t, r)
	run := func(src string) string {
		t.Helper()
		v, err := r.Call(context.Background(), func(vm *goja.Runtime) (goja.Value, error) { return vm.RunString(src) }, nil)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return fmt.Sprint(v)
	}
	base := runtime.NumGoroutine()
	got := run(`
		const zlib = require("zlib");
		const text = "streamed text ".repeat(1000);
		const results = [];
		for (const [c, d, back] of [["createGzip", "createGunzip", "gunzipSync"], ["createDeflate", "createInflate", "inflateSync"],
			["createDeflateRaw", "createInflateRaw", "inflateRawSync"], ["createGzip", "createUnzip", "unzipSync"], ["createDeflate", "createUnzip", "unzipSync"]]) {
			const s = zlib[c]({ level: 9 });
			for (let i = 0; i < text.length; i += 1000) s.write(Buffer.from(text.slice(i, i + 1000)));
			s.end();
			const z = s.output();
			const ok1 = zlib[back](z).toString() === text;
			const u = zlib[d]();
			for (let i = 0; i < z.length; i += 7) u.write(z.subarray(i, i + 7));
			let ended = false;
			u.on("end", () => { ended = true; });
			u.end();
			results.push(c + ">" + d + ":" + ok1 + "," + (u.output().toString() === text) + "," + ended + "," + s.bytesWritten);
		}
		const g = zlib.createGunzip();
		let err;
		g.on("error", (e) => { err = e.code + " " + e.message; });
		g.write(Buffer.from("not gzip"));
		results.push("error:" + err);
		const f = zlib.createDeflate();
		f.write(Buffer.from("flushed"));
		f.flush();
		results.push("flush:" + zlib.inflateSync(f.output(), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString());
		results.push("classes:" + (zlib.createGzip() instanceof zlib.Gzip) + "," + (zlib.Gunzip() instanceof zlib.Gunzip));
		results.join(" ")`)
	want := "createGzip>createGunzip:true,true,true,14000 createDeflate>createInflate:true,true,true,14000 createDeflateRaw>createInflateRaw:true,true,true,14000 " +
		"createGzip>createUnzip:true,true,true,14000 createDeflate>createUnzip:true,true,true,14000 error:Z_DATA_ERROR incorrect header check flush:flushed classes:true,true"
	if got != want {
		t.Errorf("streams:\n got %s\nwant %s", got, want)
	}
	got = run(`
		const big = zlib.gzipSync(Buffer.alloc(12 << 20));
		const b = zlib.createGunzip();
		let bombErr;
		b.on("error", (e) => { bombErr = e.code + " " + e.message; });
		b.write(big);
		bombErr`)
	if want := "ERR_BUFFER_TOO_LARGE Cannot create a Buffer larger than 8388608 bytes"; got != want {
		t.Errorf("bomb through a stream: %s, want %s", got, want)
	}
	got = run(`
		const held = [];
		let refused = "";
		for (let i = 0; i < 70; i++) {
			const s = zlib.createGunzip();
			let failed;
			s.on("error", (e) => { failed = e.message; });
			s.write(Buffer.from([0x1f]));
			if (failed) { refused = failed; break; }
			held.push(s);
		}
		const n = held.length;
		for (const s of held) s.destroy();
		const again = zlib.createGunzip();
		again.write(zlib.gzipSync("after"));
		again.end();
		n + " " + refused + " " + again.output().toString()`)
	if !strings.HasPrefix(got, "64 zlib: this plugin already decompresses 64 streams") || !strings.HasSuffix(got, " after") {
		t.Errorf("stream count: %s", got)
	}
	r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base+2 {
		t.Errorf("%d goroutines after the runtime closed, %d before", n, base)
	}
}

// The decompressors never panic, never pass their limit, and give back
// what Go's own readers do whenever those succeed.
func FuzzZlibDecompress(f *testing.F) {
	for _, s := range []string{"hello", "", "zeros"} {
		for _, mode := range []int{zGzip, zDeflate, zDeflateRaw} {
			z, _ := zlibCompress(zlibOptions{mode: mode, level: -1, limit: 1 << 20, finish: 4}, []byte(s), func() bool { return false })
			f.Add(z, uint8(mode+1), uint16(1000))
		}
	}
	f.Add(bomb(f, zGzip, 2<<20), uint8(zGunzip), uint16(100))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint8(zGunzip), uint16(10))
	f.Fuzz(func(t *testing.T, in []byte, mode uint8, limit uint16) {
		m := int(mode%4)*2 + 2 // inflate, gunzip, inflateRaw, unzip
		if m == 8 {
			m = zUnzip
		}
		o := zlibOptions{mode: m, limit: int64(limit) + 1, finish: 4}
		out, err := zlibDecompress(o, in, func() bool { return false })
		if int64(len(out)) > o.limit {
			t.Fatalf("%d bytes past the limit %d", len(out), o.limit)
		}
		var ref io.Reader
		var rerr error
		switch m {
		case zGunzip:
			ref, rerr = gzip.NewReader(bytes.NewReader(in))
		case zInflate:
			ref, rerr = zlib.NewReader(bytes.NewReader(in))
		case zInflateRaw:
			ref = flate.NewReader(bytes.NewReader(in))
		default:
			return
		}
		if rerr != nil {
			return
		}
		var ze *zlibError
		if errors.As(err, &ze) && ze.msg == "unknown header flags set" {
			return // zlib refuses gzip's reserved flags, which Go ignores
		}
		want, rerr := io.ReadAll(io.LimitReader(ref, o.limit+1))
		if rerr != nil || int64(len(want)) > o.limit {
			return
		}
		if err != nil || !bytes.Equal(out, want) {
			t.Fatalf("mode %d: %q %v, Go's reader %q", m, out, err, want)
		}
	})
}
