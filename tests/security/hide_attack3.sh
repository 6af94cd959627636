# The escape suite, third round on hidden files: what of a hidden file the
# agent reaches through git's packs, git's temporary files and the view's
# metadata.  A test of a hole fails on the build before its fix; the others
# keep what held.
source "$TESTS/security/helpers.bash"

# A repository that ignores .env, *.key and secrets/, with one commit.
hide_repo() {
	git_init "$T/p"
	printf '.env\n*.key\nsecrets/\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
}

# The agent's reader of a pack: every object of every pack in the store
# printed by git (cat-file on each id the .idx lists), and the raw pack
# bytes inflated at every offset (a reader that needs no .idx and no git:
# python's zlib), so a secret is found whichever way the object is read.
PACK_READER='
for i in .git/objects/pack/*.idx; do
	git show-index <"$i" | while read -r _ id _; do git cat-file -p "$id" 2>/dev/null; done
done
python3 - <<"PY"
import glob, zlib
for p in glob.glob(".git/objects/pack/*"):
    b = open(p, "rb").read()
    for i in range(len(b)):
        try:
            print(zlib.decompressobj().decompress(b[i:i + 4096]).decode("latin-1").replace("\0", ""))
        except Exception:
            pass
PY'

# `git gc` (or gc --auto after enough commits) moves the loose objects into
# a pack, where they cannot be withheld one at a time as loose ones are:
# an `.env` staged once, or kept by `git stash --all`, is in the pack.  The
# view serves a pack with the bytes of each withheld object blanked (its
# .idx says where they are): git inside finds those objects corrupt, the
# raw bytes hold nothing of them, and every other object reads as before.
test_hidden_content_not_readable_from_a_pack() {
	command -v python3 >/dev/null || skip "no python3"
	hide_repo
	printf 'SECRET=canary-packed-env\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	git -C "$T/p" rm -q --cached .env
	printf 'canary-packed-key\n' >"$T/p/deploy.key"
	git -C "$T/p" stash -q --all
	git -C "$T/p" stash apply -q
	git -C "$T/p" gc -q --prune=now
	[ -z "$(find "$T/p/.git/objects" -path '*/objects/??/*' -type f)" ] ||
		fail "the set-up left loose objects"
	grep -q canary-packed-env <<<"$(cd "$T/p" && eval "$PACK_READER")" ||
		fail "the reader finds nothing on the host: it proves nothing"
	run_jail -q -D "$T/p" -- sh -c "git cat-file -p HEAD:README; $PACK_READER"
	assert_contains "$out" hello # the positive control: the pack reads
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of hidden files in a pack"
}
