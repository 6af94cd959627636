/* hidepack.h — hidden files' content in git's packs.
 *
 * The view withholds a loose object that holds a hidden file's content
 * (hideobj.h) by its name.  A pack holds many objects in one file, so one
 * object cannot be left out by name; and `git gc` (or gc --auto, after
 * enough commits) packs every loose object, an `.env` staged once or kept by
 * `git stash --all` among them.  So the view serves a pack with the bytes of
 * each withheld object blanked: the pack's .idx (git's own, on the host)
 * says where each object starts, the next object's start (or the trailer)
 * where it ends.  Git inside then finds those objects corrupt and reads
 * every other as before; the raw bytes hold nothing of them (a reader that
 * inflates at every offset finds nothing).  The ids themselves stay in the
 * .idx: an id is a hash of the content, not the content.
 *
 * A file of a pack directory whose objects cannot be located so (a pack
 * without its .idx, an .idx that is not the pack's or not git's version 2,
 * git's temporary files while it writes a pack) is not served at all while
 * anything is withheld. */
#ifndef JAIL_HIDEPACK_H
#define JAIL_HIDEPACK_H
#include "util.h"

#include <stdint.h>

struct hidepack_range {
	uint64_t from, to; /* [from, to): bytes of the pack served as zeros */
};

/* What a file named `name` in a pack directory is. */
enum hidepack_kind {
	HIDEPACK_PLAIN, /* an index of ids and offsets (.idx, .rev, .bitmap, ...) */
	HIDEPACK_PACK,  /* pack-*.pack: served with hidepack_ranges blanked */
	HIDEPACK_OTHER, /* anything else (tmp_pack_*, .tmp-*): not served */
};
enum hidepack_kind hidepack_kind(const char *name);

/* The .idx name of pack-X.pack (a new string). */
char *hidepack_idx_name(const char *pack_name);

/* The ranges of the pack open at `pack` that hold an object of `ids`
 * ("ab/cdef…", sorted, as hideobj_collect makes them), read from its index
 * open at `idx` (version 2, SHA-1 or SHA-256): 0 with *out (sorted, to be
 * freed) and *n (maybe 0); -1 with errno when the index is not git's
 * version 2 or not this pack's (its pack checksum differs). */
int hidepack_ranges(int idx, int pack, const struct strv *ids, struct hidepack_range **out,
                    size_t *n);

/* Zero what of buf (len bytes read at offset off) lies in the ranges. */
void hidepack_blank(const struct hidepack_range *r, size_t n, char *buf, size_t len, uint64_t off);
#endif
