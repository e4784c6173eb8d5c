package peer

import (
	"bytes"
	"encoding/binary"
)

// CQDB, the constant quark database of CRFsuite (lib/cqdb/src/cqdb.c). All
// offsets are relative to the start of the chunk.
//
//	header (24 bytes): "CQDB", chunk size, flag, byte-order mark 0x62445371,
//	    number of backward links, offset of the backward-link array.
//	256 table references: offset and number of buckets of each hash table.
//	buckets (8 bytes): hash, offset of a record (0 = empty).
//	records: id, key size (including the NUL), key bytes.
//	backward links: one record offset per id (0 = none).
//
// CRFsuite looks strings up by Jenkins' lookup3 hash with linear probing;
// since a model is read once, this reader instead collects every record the
// hash tables reference into a Go map, which finds the same id for every key
// the CRFsuite writer can produce (it never writes a key twice).
const (
	cqdbHeaderSize = 24
	cqdbTables     = 256
	cqdbByteOrder  = 0x62445371
)

type cqdb struct {
	b      binReader
	sect   string
	off    int64 // chunk start in the file
	chunk  []byte
	bwd    int64 // backward-link array offset in chunk, 0 if none
	bwdNum uint32
}

func readCQDB(b binReader, section string, off int64) (*cqdb, error) {
	if off <= 0 || off > int64(len(b.data))-cqdbHeaderSize {
		return nil, formatErr(b.f, section, off, "chunk header out of the file (%d bytes)", len(b.data))
	}
	h := b.data[off:]
	if string(h[:4]) != "CQDB" {
		return nil, formatErr(b.f, section, off, "chunk tag %q, want \"CQDB\"", h[:4])
	}
	size := int64(binary.LittleEndian.Uint32(h[4:]))
	if size < cqdbHeaderSize+8*cqdbTables || size > int64(len(b.data))-off {
		return nil, formatErr(b.f, section, off+4, "chunk size %d does not fit (file has %d bytes after the chunk start)", size, int64(len(b.data))-off)
	}
	if bo := binary.LittleEndian.Uint32(h[12:]); bo != cqdbByteOrder {
		return nil, formatErr(b.f, section, off+12, "byte-order mark %#x, want %#x", bo, cqdbByteOrder)
	}
	db := &cqdb{b: b, sect: section, off: off, chunk: b.data[off : off+size]}
	db.bwdNum = binary.LittleEndian.Uint32(h[16:])
	db.bwd = int64(binary.LittleEndian.Uint32(h[20:]))
	if db.bwd != 0 && (db.bwd > size || int64(db.bwdNum)*4 > size-db.bwd) {
		return nil, formatErr(b.f, section, off+16, "backward links (%d at %d) exceed the chunk (%d bytes)", db.bwdNum, db.bwd, size)
	}
	return db, nil
}

// record returns the id and key of the record at chunk offset p.
func (db *cqdb) record(p int64) (uint32, string, error) {
	c := db.chunk
	if p < cqdbHeaderSize || p > int64(len(c))-8 {
		return 0, "", formatErr(db.b.f, db.sect, db.off+p, "record offset %d outside the chunk (%d bytes)", p, len(c))
	}
	id := binary.LittleEndian.Uint32(c[p:])
	ks := int64(binary.LittleEndian.Uint32(c[p+4:]))
	if ks < 1 || ks > int64(len(c))-p-8 {
		return 0, "", formatErr(db.b.f, db.sect, db.off+p+4, "key size %d exceeds the chunk", ks)
	}
	key := c[p+8 : p+8+ks]
	// CRFsuite compares keys with strcmp: the key ends at its first NUL.
	if i := bytes.IndexByte(key, 0); i >= 0 {
		key = key[:i]
	}
	return id, string(key), nil
}

// toString returns the key of id via the backward links (cqdb_to_string).
func (db *cqdb) toString(id uint32) (string, bool) {
	if db.bwd == 0 || id >= db.bwdNum {
		return "", false
	}
	p := int64(binary.LittleEndian.Uint32(db.chunk[db.bwd+4*int64(id):]))
	if p == 0 {
		return "", false
	}
	_, s, err := db.record(p)
	return s, err == nil
}

// all returns every key → id of the hash tables. Of two records with the
// same key, the first in table and bucket order wins.
func (db *cqdb) all() (map[string]int32, error) {
	c := db.chunk
	total := 0
	for t := 0; t < cqdbTables; t++ {
		at := int64(cqdbHeaderSize + 8*t)
		toff := int64(binary.LittleEndian.Uint32(c[at:]))
		num := int64(binary.LittleEndian.Uint32(c[at+4:]))
		if num == 0 {
			continue
		}
		if toff < cqdbHeaderSize || toff > int64(len(c)) || num*8 > int64(len(c))-toff {
			return nil, formatErr(db.b.f, db.sect, db.off+at, "hash table %d (%d buckets at %d) exceeds the chunk (%d bytes)", t, num, toff, len(c))
		}
		total += int(num)
	}
	m := make(map[string]int32, min(total/2+1, len(c)/9))
	for t := 0; t < cqdbTables; t++ {
		at := int64(cqdbHeaderSize + 8*t)
		toff := int64(binary.LittleEndian.Uint32(c[at:]))
		num := int64(binary.LittleEndian.Uint32(c[at+4:]))
		for k := int64(0); k < num; k++ {
			p := int64(binary.LittleEndian.Uint32(c[toff+8*k+4:]))
			if p == 0 {
				continue
			}
			id, key, err := db.record(p)
			if err != nil {
				return nil, err
			}
			if id > 1<<31-1 {
				return nil, formatErr(db.b.f, db.sect, db.off+p, "id %d out of range", id)
			}
			if _, dup := m[key]; !dup {
				m[key] = int32(id)
			}
		}
	}
	return m, nil
}
