package jsrt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"crypto/subtle"
	"encoding"
	"encoding/binary"
	"errors"
	"hash"
	"math/big"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"
	"golang.org/x/crypto/scrypt"
)

// The Go half of node:crypto: hashes and HMACs, random bytes, PBKDF2 and
// scrypt, and AES in CBC, CTR, ECB and GCM modes, over Go's crypto.
// node/crypto.js checks the arguments and makes Node's errors; the state
// of a hash or cipher lives here, handed to JavaScript as an opaque
// handle (a Go value with nothing exported).
//
// Key derivations run on the loop for the sync forms, giving up when the
// job is interrupted, and off it, in a pool of four (as Node's thread
// pool), for the callback forms. What they make is sized by the script
// and refused past the memory budget, as randomBytes is.

// cryptoWorkers is how many key derivations one runtime runs at once off
// the loop.
const cryptoWorkers = 4

func init() { nodeHosts["crypto"] = cryptoHost }

// hashAlgs are the digests, by Node's (OpenSSL's) lowercase name.
var hashAlgs = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha224": sha256.New224, "sha256": sha256.New, "sha384": sha512.New384,
	"sha512": sha512.New, "sha512-224": sha512.New512_224, "sha512-256": sha512.New512_256,
	"sha3-224": func() hash.Hash { return sha3.New224() }, "sha3-256": func() hash.Hash { return sha3.New256() },
	"sha3-384": func() hash.Hash { return sha3.New384() }, "sha3-512": func() hash.Hash { return sha3.New512() },
	"blake2b512": func() hash.Hash { h, _ := blake2b.New512(nil); return h },
	"blake2s256": func() hash.Hash { h, _ := blake2s.New256(nil); return h },
	"md5-sha1":   func() hash.Hash { return &md5sha1{md5.New(), sha1.New()} },
}

// hashAliases are OpenSSL's other names for them.
var hashAliases = func() map[string]string {
	m := map[string]string{"ssl3-md5": "md5", "ssl3-sha1": "sha1", "rsa-sha1-2": "sha1", "rsa-sha512/224": "sha512-224", "rsa-sha512/256": "sha512-256"}
	for _, n := range []string{"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256", "sha3-224", "sha3-256", "sha3-384", "sha3-512"} {
		if !strings.HasPrefix(n, "sha3") {
			m[n+"withrsaencryption"] = n
		} else {
			m["id-rsassa-pkcs1-v1_5-with-"+n] = n
		}
		if !strings.HasPrefix(n, "sha512-") {
			m["rsa-"+n] = n
		}
	}
	return m
}()

// shakeLengths are the default output lengths of the XOFs.
var shakeLengths = map[string]int{"shake128": 16, "shake256": 32}

// hashNames are the names getHashes lists, as Node spells them.
var hashNames = func() []string {
	names := []string{"RSA-MD5", "RSA-SHA1", "RSA-SHA1-2", "RSA-SHA224", "RSA-SHA256", "RSA-SHA3-224", "RSA-SHA3-256", "RSA-SHA3-384",
		"RSA-SHA3-512", "RSA-SHA384", "RSA-SHA512", "RSA-SHA512/224", "RSA-SHA512/256", "blake2b512", "blake2s256",
		"id-rsassa-pkcs1-v1_5-with-sha3-224", "id-rsassa-pkcs1-v1_5-with-sha3-256", "id-rsassa-pkcs1-v1_5-with-sha3-384",
		"id-rsassa-pkcs1-v1_5-with-sha3-512", "md5", "md5-sha1", "md5WithRSAEncryption", "sha1", "sha1WithRSAEncryption",
		"sha224", "sha224WithRSAEncryption", "sha256", "sha256WithRSAEncryption", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
		"sha384", "sha384WithRSAEncryption", "sha512", "sha512-224", "sha512-224WithRSAEncryption", "sha512-256",
		"sha512-256WithRSAEncryption", "sha512WithRSAEncryption", "shake128", "shake256", "ssl3-md5", "ssl3-sha1"}
	return names
}()

// hashAlgName is the canonical name of a digest, or "".
func hashAlgName(name string) string {
	n := strings.ToLower(name)
	if a, ok := hashAliases[n]; ok {
		n = a
	}
	if _, ok := hashAlgs[n]; ok {
		return n
	}
	if _, ok := shakeLengths[n]; ok {
		return n
	}
	return ""
}

// md5sha1 is OpenSSL's md5-sha1: both digests, one after the other.
type md5sha1 struct{ a, b hash.Hash }

func (h *md5sha1) Write(p []byte) (int, error) { h.a.Write(p); return h.b.Write(p) }
func (h *md5sha1) Sum(b []byte) []byte         { return h.b.Sum(h.a.Sum(b)) }
func (h *md5sha1) Reset()                      { h.a.Reset(); h.b.Reset() }
func (h *md5sha1) Size() int                   { return h.a.Size() + h.b.Size() }
func (h *md5sha1) BlockSize() int              { return h.a.BlockSize() }
func (h *md5sha1) Clone() (hash.Cloner, error) {
	a, err := h.a.(hash.Cloner).Clone()
	if err != nil {
		return nil, err
	}
	b, err := h.b.(hash.Cloner).Clone()
	if err != nil {
		return nil, err
	}
	return &md5sha1{a, b}, nil
}

// cryptoHash is a hash or HMAC under way (the JavaScript half's handle).
type cryptoHash struct {
	alg   string
	h     hash.Hash   // nil for a XOF
	shake *sha3.SHAKE // shake128, shake256
	size  int         // a XOF's output length
}

func newCryptoHash(alg string, key []byte, outLen int) *cryptoHash {
	if n, ok := shakeLengths[alg]; ok {
		s := sha3.NewSHAKE128()
		if alg == "shake256" {
			s = sha3.NewSHAKE256()
		}
		if outLen < 0 {
			outLen = n
		}
		return &cryptoHash{alg: alg, shake: s, size: outLen}
	}
	if key != nil {
		return &cryptoHash{alg: alg, h: hmac.New(hashAlgs[alg], key)}
	}
	return &cryptoHash{alg: alg, h: hashAlgs[alg]()}
}

func (c *cryptoHash) write(p []byte) {
	if c.shake != nil {
		c.shake.Write(p)
		return
	}
	c.h.Write(p)
}

func (c *cryptoHash) sum() []byte {
	if c.shake != nil {
		out := make([]byte, c.size)
		c.shake.Read(out)
		return out
	}
	return c.h.Sum(nil)
}

// clone copies the state: a Cloner's, or through its binary form.
func (c *cryptoHash) clone(outLen int) (*cryptoHash, error) {
	if c.shake != nil {
		state, err := c.shake.MarshalBinary()
		if err != nil {
			return nil, err
		}
		n := newCryptoHash(c.alg, nil, outLen)
		return n, n.shake.UnmarshalBinary(state)
	}
	if cl, ok := c.h.(hash.Cloner); ok {
		if h, err := cl.Clone(); err == nil {
			return &cryptoHash{alg: c.alg, h: h}, nil
		}
	}
	m, ok := c.h.(encoding.BinaryMarshaler)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	state, err := m.MarshalBinary()
	if err != nil {
		return nil, err
	}
	n := newCryptoHash(c.alg, nil, -1)
	u, ok := n.h.(encoding.BinaryUnmarshaler)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return n, u.UnmarshalBinary(state)
}

func cryptoHost(r *Runtime) (*goja.Object, error) {
	h := r.vm.NewObject()
	pool := &hostPool{what: "crypto", limit: cryptoWorkers}
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { h.Set(name, fn) }
	handle := func(v goja.Value) *cryptoHash {
		c, ok := v.Export().(*cryptoHash)
		if !ok {
			panic(r.vm.NewTypeError("crypto: not a hash"))
		}
		return c
	}
	h.Set("hashes", hashNames)
	h.Set("ciphers", cipherNames)
	// hashName(name) → the canonical name, or ""
	set("hashName", func(c goja.FunctionCall) goja.Value { return r.vm.ToValue(hashAlgName(c.Argument(0).String())) })
	// hashNew(alg, key|undefined, outputLength|-1) → handle
	set("hashNew", func(c goja.FunctionCall) goja.Value {
		alg := hashAlgName(c.Argument(0).String())
		var key []byte
		if k := c.Argument(1); !goja.IsUndefined(k) {
			key = append([]byte{}, r.viewBytes(k)...)
		}
		return r.vm.ToValue(newCryptoHash(alg, key, int(c.Argument(2).ToInteger())))
	})
	set("hashUpdate", func(c goja.FunctionCall) goja.Value {
		handle(c.Argument(0)).write(r.viewBytes(c.Argument(1)))
		return goja.Undefined()
	})
	set("hashDigest", func(c goja.FunctionCall) goja.Value {
		return r.vm.ToValue(r.vm.NewArrayBuffer(handle(c.Argument(0)).sum()))
	})
	// hashCopy(handle, outputLength|-1) → handle
	set("hashCopy", func(c goja.FunctionCall) goja.Value {
		n, err := handle(c.Argument(0)).clone(int(c.Argument(1).ToInteger()))
		if err != nil {
			panic(r.vm.NewGoError(err))
		}
		return r.vm.ToValue(n)
	})
	// randomFill(view): crypto/rand's bytes
	set("randomFill", func(c goja.FunctionCall) goja.Value {
		rand.Read(r.viewBytes(c.Argument(0)))
		return goja.Undefined()
	})
	// randomInt(range) → a uniform integer in [0, range), range ≤ 2^48
	set("randomInt", func(c goja.FunctionCall) goja.Value {
		n, err := rand.Int(rand.Reader, big.NewInt(c.Argument(0).ToInteger()))
		if err != nil {
			panic(r.vm.NewGoError(err))
		}
		return r.vm.ToValue(n.Int64())
	})
	set("randomUUID", func(goja.FunctionCall) goja.Value { return r.vm.ToValue(randomUUID()) })
	set("timingSafeEqual", func(c goja.FunctionCall) goja.Value {
		return r.vm.ToValue(subtle.ConstantTimeCompare(r.viewBytes(c.Argument(0)), r.viewBytes(c.Argument(1))) == 1)
	})
	// pbkdf2(password, salt, iterations, keylen, digest, async)
	set("pbkdf2", func(c goja.FunctionCall) goja.Value {
		pass, salt := slices.Clone(r.viewBytes(c.Argument(0))), slices.Clone(r.viewBytes(c.Argument(1)))
		iter, keyLen, alg := int(c.Argument(2).ToInteger()), int(c.Argument(3).ToInteger()), hashAlgs[hashAlgName(c.Argument(4).String())]
		r.checkBudget("pbkdf2", int64(keyLen))
		return r.derive(pool, c.Argument(5).ToBoolean(), len(pass)+len(salt), func(stop func() bool) ([]byte, error) {
			return pbkdf2Key(alg, pass, salt, iter, keyLen, stop)
		})
	})
	// scrypt(password, salt, keylen, N, r, p, async): the parameters
	// checked by the JavaScript half, memory within maxmem and the budget
	set("scrypt", func(c goja.FunctionCall) goja.Value {
		pass, salt := slices.Clone(r.viewBytes(c.Argument(0))), slices.Clone(r.viewBytes(c.Argument(1)))
		keyLen, n, br, p := int(c.Argument(2).ToInteger()), int(c.Argument(3).ToInteger()), int(c.Argument(4).ToInteger()), int(c.Argument(5).ToInteger())
		r.checkBudget("scrypt", int64(keyLen))
		return r.derive(pool, c.Argument(6).ToBoolean(), len(pass)+len(salt), func(func() bool) ([]byte, error) {
			if keyLen == 0 {
				return []byte{}, nil // scrypt.Key panics on it
			}
			return scrypt.Key(pass, salt, n, br, p, keyLen)
		})
	})
	r.cipherHost(h)
	return h, nil
}

// derive runs a key derivation on the loop (sync: the key as an
// ArrayBuffer, or thrown) or off it (a promise of the key). stop says
// when to give up: the job was interrupted, or the runtime is closing.
func (r *Runtime) derive(pool *hostPool, async bool, held int, work func(stop func() bool) ([]byte, error)) goja.Value {
	if !async {
		key, err := work(r.interrupted.Load)
		if errors.Is(err, errStopped) {
			return goja.Undefined() // the VM unwinds with the interrupt at its next instruction
		}
		if err != nil {
			panic(r.vm.NewGoError(err))
		}
		return r.vm.ToValue(r.vm.NewArrayBuffer(key))
	}
	return r.vm.ToValue(r.async(pool, held, func() (any, error) { return work(r.closing) }, r.bufferValue))
}

var errStopped = errors.New("stopped")

// pbkdf2Key is PBKDF2 (RFC 8018) with HMAC over h, as crypto/pbkdf2
// computes it, but checking stop every thousand iterations: a script
// chooses the count, up to 2^31.
func pbkdf2Key(h func() hash.Hash, password, salt []byte, iter, keyLen int, stop func() bool) ([]byte, error) {
	prf := hmac.New(h, password)
	size := prf.Size()
	out := make([]byte, 0, keyLen+size)
	u := make([]byte, size)
	t := make([]byte, size)
	var counter [4]byte
	for block := uint32(1); len(out) < keyLen; block++ {
		binary.BigEndian.PutUint32(counter[:], block)
		prf.Reset()
		prf.Write(salt)
		prf.Write(counter[:])
		u = prf.Sum(u[:0])
		copy(t, u)
		for i := 1; i < iter; i++ {
			if i&1023 == 0 && stop() {
				return nil, errStopped
			}
			prf.Reset()
			prf.Write(u)
			u = prf.Sum(u[:0])
			subtle.XORBytes(t, t, u)
		}
		out = append(out, t...)
	}
	return out[:keyLen], nil
}

func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexDigits = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, x := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexDigits[x>>4], hexDigits[x&15])
	}
	return string(out)
}

// Ciphers: AES in CBC, ECB, CTR and GCM.

var cipherNames = []string{
	"aes-128-cbc", "aes-128-ctr", "aes-128-ecb", "aes-128-gcm", "aes-192-cbc", "aes-192-ctr", "aes-192-ecb", "aes-192-gcm",
	"aes-256-cbc", "aes-256-ctr", "aes-256-ecb", "aes-256-gcm", "aes128", "aes192", "aes256", "id-aes128-GCM", "id-aes192-GCM", "id-aes256-GCM",
}

// cipherSpec is what a cipher's name says: its key size and mode.
func cipherSpec(name string) (keyLen int, mode string, ok bool) {
	n := strings.ToLower(name)
	switch n {
	case "aes128", "aes192", "aes256":
		n = "aes-" + n[3:] + "-cbc"
	case "id-aes128-gcm", "id-aes192-gcm", "id-aes256-gcm":
		n = "aes-" + n[6:9] + "-gcm"
	}
	parts := strings.Split(n, "-")
	if len(parts) != 3 || parts[0] != "aes" {
		return 0, "", false
	}
	switch parts[1] {
	case "128":
		keyLen = 16
	case "192":
		keyLen = 24
	case "256":
		keyLen = 32
	default:
		return 0, "", false
	}
	switch parts[2] {
	case "cbc", "ecb", "ctr", "gcm":
		return keyLen, parts[2], true
	}
	return 0, "", false
}

// The errors a cipher reports, which the JavaScript half turns into
// Node's (OpenSSL's).
var (
	errBadDecrypt       = errors.New("bad decrypt")
	errWrongFinalLength = errors.New("wrong final block length")
	errAuth             = errors.New("unable to authenticate")
)

// cryptoCipher is a cipher or decipher under way.
type cryptoCipher struct {
	mode    string
	decrypt bool
	block   cipher.Block
	iv      []byte
	padding bool
	cbc     cipher.BlockMode // cbc, ecb (nil: ecb)
	ctr     cipher.Stream
	gcm     *gcmStream
	pending []byte // bytes of a block not yet whole (cbc, ecb)
	held    []byte // decryption: the last whole block, which may be padding
	tag     []byte // gcm: the tag computed (encryption) or given (decryption)
}

func (c *cryptoCipher) blocks(dst, src []byte) {
	if c.cbc != nil {
		c.cbc.CryptBlocks(dst, src)
		return
	}
	for i := 0; i < len(src); i += aes.BlockSize {
		if c.decrypt {
			c.block.Decrypt(dst[i:], src[i:])
		} else {
			c.block.Encrypt(dst[i:], src[i:])
		}
	}
}

// update returns what OpenSSL returns for in: every whole block in a
// block mode (less, when decrypting with padding, the last one, kept
// until final), the same length in a stream mode.
func (c *cryptoCipher) update(in []byte) []byte {
	switch c.mode {
	case "ctr":
		out := make([]byte, len(in))
		c.ctr.XORKeyStream(out, in)
		return out
	case "gcm":
		return c.gcm.update(in, c.decrypt)
	}
	data := append(c.pending, in...)
	whole := len(data) / aes.BlockSize * aes.BlockSize
	c.pending = append([]byte(nil), data[whole:]...)
	out := make([]byte, len(c.held)+whole)
	copy(out, c.held)
	c.blocks(out[len(c.held):], data[:whole])
	c.held = nil
	if c.decrypt && c.padding && len(c.pending) == 0 && len(out) >= aes.BlockSize {
		c.held = append([]byte(nil), out[len(out)-aes.BlockSize:]...)
		out = out[:len(out)-aes.BlockSize]
	}
	return out
}

func (c *cryptoCipher) final() ([]byte, error) {
	switch c.mode {
	case "ctr":
		return nil, nil
	case "gcm":
		tag := c.gcm.sum()
		if !c.decrypt {
			c.tag = tag
			return nil, nil
		}
		if c.tag == nil || subtle.ConstantTimeCompare(tag[:len(c.tag)], c.tag) != 1 {
			return nil, errAuth
		}
		return nil, nil
	}
	if !c.padding {
		if len(c.pending) != 0 {
			return nil, errWrongFinalLength
		}
		return nil, nil
	}
	if !c.decrypt {
		n := aes.BlockSize - len(c.pending)
		last := append(c.pending, make([]byte, n)...)
		for i := len(c.pending); i < aes.BlockSize; i++ {
			last[i] = byte(n)
		}
		c.blocks(last, last)
		return last, nil
	}
	if len(c.pending) != 0 || c.held == nil {
		return nil, errWrongFinalLength
	}
	last := c.held
	n := int(last[aes.BlockSize-1])
	if n == 0 || n > aes.BlockSize {
		return nil, errBadDecrypt
	}
	bad := 0
	for _, x := range last[aes.BlockSize-n:] {
		bad |= int(x) ^ n
	}
	if bad != 0 {
		return nil, errBadDecrypt
	}
	return last[:aes.BlockSize-n], nil
}

func (r *Runtime) cipherHost(h *goja.Object) {
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { h.Set(name, fn) }
	handle := func(v goja.Value) *cryptoCipher {
		c, ok := v.Export().(*cryptoCipher)
		if !ok {
			panic(r.vm.NewTypeError("crypto: not a cipher"))
		}
		return c
	}
	// cipherCheck(name, keyLen, ivLen|-1) → "", or what is wrong: "cipher",
	// "key", "iv"
	set("cipherCheck", func(c goja.FunctionCall) goja.Value {
		keyLen, mode, ok := cipherSpec(c.Argument(0).String())
		switch iv := int(c.Argument(2).ToInteger()); {
		case !ok:
			return r.vm.ToValue("cipher")
		case int(c.Argument(1).ToInteger()) != keyLen:
			return r.vm.ToValue("key")
		case mode == "ecb" && iv > 0, mode == "cbc" && iv != aes.BlockSize, mode == "ctr" && iv != aes.BlockSize, mode == "gcm" && iv < 1:
			return r.vm.ToValue("iv")
		}
		return r.vm.ToValue("")
	})
	// cipherMode(name) → "cbc", "ecb", "ctr" or "gcm"
	set("cipherMode", func(c goja.FunctionCall) goja.Value {
		_, mode, _ := cipherSpec(c.Argument(0).String())
		return r.vm.ToValue(mode)
	})
	// cipherNew(name, key, iv|null, decrypt) → handle (cipherCheck passed)
	set("cipherNew", func(c goja.FunctionCall) goja.Value {
		_, mode, _ := cipherSpec(c.Argument(0).String())
		block, err := aes.NewCipher(r.viewBytes(c.Argument(1)))
		if err != nil {
			panic(r.vm.NewGoError(err))
		}
		var iv []byte
		if v := c.Argument(2); !goja.IsNull(v) && !goja.IsUndefined(v) {
			iv = slices.Clone(r.viewBytes(v))
		}
		cc := &cryptoCipher{mode: mode, decrypt: c.Argument(3).ToBoolean(), block: block, iv: iv, padding: true}
		switch mode {
		case "cbc":
			if cc.decrypt {
				cc.cbc = cipher.NewCBCDecrypter(block, iv)
			} else {
				cc.cbc = cipher.NewCBCEncrypter(block, iv)
			}
		case "ctr":
			cc.ctr = cipher.NewCTR(block, iv)
		case "gcm":
			cc.gcm = newGCMStream(block, iv)
		}
		return r.vm.ToValue(cc)
	})
	set("cipherUpdate", func(c goja.FunctionCall) goja.Value {
		return r.vm.ToValue(r.vm.NewArrayBuffer(handle(c.Argument(0)).update(r.viewBytes(c.Argument(1)))))
	})
	// cipherFinal(handle) → ArrayBuffer, or the name of what failed
	set("cipherFinal", func(c goja.FunctionCall) goja.Value {
		out, err := handle(c.Argument(0)).final()
		if err != nil {
			return r.vm.ToValue(err.Error())
		}
		return r.vm.ToValue(r.vm.NewArrayBuffer(out))
	})
	set("cipherSetPadding", func(c goja.FunctionCall) goja.Value {
		handle(c.Argument(0)).padding = c.Argument(1).ToBoolean()
		return goja.Undefined()
	})
	// cipherSetAAD(handle, view) → false when data came already
	set("cipherSetAAD", func(c goja.FunctionCall) goja.Value {
		return r.vm.ToValue(handle(c.Argument(0)).gcm.addAAD(r.viewBytes(c.Argument(1))))
	})
	set("cipherSetAuthTag", func(c goja.FunctionCall) goja.Value {
		handle(c.Argument(0)).tag = slices.Clone(r.viewBytes(c.Argument(1)))
		return goja.Undefined()
	})
	// cipherGetAuthTag(handle, length) → ArrayBuffer
	set("cipherGetAuthTag", func(c goja.FunctionCall) goja.Value {
		tag := handle(c.Argument(0)).tag
		return r.vm.ToValue(r.vm.NewArrayBuffer(slices.Clone(tag[:c.Argument(1).ToInteger()])))
	})
}

// gcmStream is AES-GCM (NIST SP 800-38D) a piece at a time, as OpenSSL
// runs it: update returns its output at once (decryption before the tag
// is checked), final computes the tag. Go's cipher.AEAD only seals or
// opens a whole message. GHASH multiplies bit by bit, in constant time.
type gcmStream struct {
	block  cipher.Block
	h      [2]uint64 // the hash key, E(K, 0)
	j0     [16]byte  // the first counter block, which masks the tag
	ctr    [16]byte  // the next counter block
	ks     [16]byte  // the keystream of the current block
	ksUsed int       // bytes of ks used
	y      [2]uint64 // GHASH so far
	part   [16]byte  // GHASH input not yet a whole block
	nPart  int
	aadLen uint64
	ctLen  uint64
	inData bool // data began: the AAD is closed
}

func newGCMStream(block cipher.Block, iv []byte) *gcmStream {
	g := &gcmStream{block: block, ksUsed: 16}
	var zero [16]byte
	var hk [16]byte
	block.Encrypt(hk[:], zero[:])
	g.h = [2]uint64{binary.BigEndian.Uint64(hk[:8]), binary.BigEndian.Uint64(hk[8:])}
	if len(iv) == 12 {
		copy(g.j0[:], iv)
		g.j0[15] = 1
	} else {
		g.ghash(iv)
		g.flush()
		var lens [16]byte
		binary.BigEndian.PutUint64(lens[8:], uint64(len(iv))*8)
		g.ghash(lens[:])
		binary.BigEndian.PutUint64(g.j0[:8], g.y[0])
		binary.BigEndian.PutUint64(g.j0[8:], g.y[1])
		g.y = [2]uint64{}
	}
	g.ctr = g.j0
	inc32(&g.ctr)
	return g
}

func inc32(b *[16]byte) {
	binary.BigEndian.PutUint32(b[12:], binary.BigEndian.Uint32(b[12:])+1)
}

// gfMul multiplies x by y in GCM's GF(2^128), bit by bit, without
// branches on the data.
func gfMul(x, y [2]uint64) [2]uint64 {
	var z [2]uint64
	v := y
	for i := 0; i < 128; i++ {
		bit := (x[i/64] >> (63 - i%64)) & 1
		mask := -bit
		z[0] ^= v[0] & mask
		z[1] ^= v[1] & mask
		lsb := v[1] & 1
		v[1] = v[1]>>1 | v[0]<<63
		v[0] = v[0]>>1 ^ (0xe1<<56)&-lsb
	}
	return z
}

// ghash feeds data to GHASH, a block at a time.
func (g *gcmStream) ghash(data []byte) {
	for len(data) > 0 {
		n := copy(g.part[g.nPart:], data)
		g.nPart += n
		data = data[n:]
		if g.nPart == 16 {
			g.y[0] ^= binary.BigEndian.Uint64(g.part[:8])
			g.y[1] ^= binary.BigEndian.Uint64(g.part[8:])
			g.y = gfMul(g.y, g.h)
			g.nPart = 0
		}
	}
}

// flush pads a last partial block with zeros.
func (g *gcmStream) flush() {
	if g.nPart > 0 {
		clear(g.part[g.nPart:])
		g.nPart = 16
		g.ghash(nil)
		g.y[0] ^= binary.BigEndian.Uint64(g.part[:8])
		g.y[1] ^= binary.BigEndian.Uint64(g.part[8:])
		g.y = gfMul(g.y, g.h)
		g.nPart = 0
	}
}

func (g *gcmStream) addAAD(aad []byte) bool {
	if g.inData {
		return false
	}
	g.ghash(aad)
	g.aadLen += uint64(len(aad))
	return true
}

func (g *gcmStream) update(in []byte, decrypt bool) []byte {
	if !g.inData {
		g.flush()
		g.inData = true
	}
	out := make([]byte, len(in))
	for i, x := range in {
		if g.ksUsed == 16 {
			g.block.Encrypt(g.ks[:], g.ctr[:])
			inc32(&g.ctr)
			g.ksUsed = 0
		}
		out[i] = x ^ g.ks[g.ksUsed]
		g.ksUsed++
	}
	if decrypt {
		g.ghash(in)
	} else {
		g.ghash(out)
	}
	g.ctLen += uint64(len(in))
	return out
}

// sum is the full 16-byte tag.
func (g *gcmStream) sum() []byte {
	g.flush()
	var lens [16]byte
	binary.BigEndian.PutUint64(lens[:8], g.aadLen*8)
	binary.BigEndian.PutUint64(lens[8:], g.ctLen*8)
	g.ghash(lens[:])
	var mask, tag [16]byte
	g.block.Encrypt(mask[:], g.j0[:])
	binary.BigEndian.PutUint64(tag[:8], g.y[0])
	binary.BigEndian.PutUint64(tag[8:], g.y[1])
	subtle.XORBytes(tag[:], tag[:], mask[:])
	return tag[:]
}
