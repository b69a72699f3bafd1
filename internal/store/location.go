package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/podcode/podcode/internal/config"
)

// File is the database's name in its data directory.
const File = "podcode.db"

// legacyFile is where a project kept its database before databases moved
// out of projects, relative to the project.
var legacyFile = filepath.Join(".podcode", File)

// DataDir returns the directory where the project at project keeps its
// database (File) and its tenants' workspaces, outside the project so
// that nothing working in the project can read them:
// $XDG_DATA_HOME/podcode/projects/<name>-<hash>, by default under
// ~/.local/share. <name> is the project directory's name and <hash> the
// start of the SHA-256 of its real path: one directory per project, that a
// person can find.
func DataDir(project string) (string, error) {
	base, err := config.UserDataDir()
	if err != nil {
		return "", fmt.Errorf("store: %w, or give a directory with --data", err)
	}
	real, err := filepath.EvalSymlinks(project)
	if err != nil {
		return "", fmt.Errorf("store: the project directory: %w", err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", fmt.Errorf("store: the project directory: %w", err)
	}
	sum := sha256.Sum256([]byte(real))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, filepath.Base(real))
	return filepath.Join(base, "projects", name+"-"+hex.EncodeToString(sum[:6])), nil
}

// Adoption is what Adopt found.
type Adoption struct {
	From  string // the database in the project, "" when there is none
	To    string // the database in the data directory
	Moved bool   // From was moved to To; false with From set: not moved (To exists, or From is not a regular file), To is used and From left alone
}

// Adopt moves the database a project kept in its .podcode folder (an
// older Podcode put it there) into dataDir, with its -wal and -shm files,
// unless dataDir already has a database. Each file is renamed (atomic), or
// on another file system copied, synced, renamed into place and then
// removed; the database file itself goes last, so an interrupted move is
// completed by the next Adopt and never loses a committed transaction. On
// error nothing is lost: the error says which file could not be moved.
//
// Only regular files are moved: when one of the three is anything else (a
// symbolic link a cloned project holds, leading where the user's sessions
// would then be written), nothing is, as when dataDir has a database.
func Adopt(project, dataDir string) (Adoption, error) {
	a := Adoption{From: filepath.Join(project, legacyFile), To: filepath.Join(dataDir, File)}
	if _, err := os.Lstat(a.From); errors.Is(err, fs.ErrNotExist) {
		a.From = ""
		return a, nil
	} else if err != nil {
		return a, fmt.Errorf("store: %w", err)
	}
	if _, err := os.Stat(a.To); err == nil {
		return a, nil
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if st, err := os.Lstat(a.From + suffix); err == nil && !st.Mode().IsRegular() {
			return a, nil
		}
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return a, fmt.Errorf("store: creating the data directory: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm", ""} {
		from, to := a.From+suffix, a.To+suffix
		if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := move(from, to); err != nil {
			return a, fmt.Errorf("store: moving the database out of the project: %s to %s: %w; move the files by hand (the database and its -wal and -shm files, together), or start with --data %s", from, to, err, filepath.Dir(a.From))
		}
	}
	a.Moved = true
	return a, nil
}

// move renames from to to, or copies it when they are on different file
// systems.
func move(from, to string) error {
	err := os.Rename(from, to)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), filepath.Base(to)+".moving-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), to); err != nil {
		return err
	}
	return os.Remove(from)
}
