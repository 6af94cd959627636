# Differential tests of `jail export` against plain git: a random mixed
# change (scripts/export-diff-change.sh, by seed) is made once by the agent in
# the jail and once in a copy of the project, where git itself commits it.
# The export's patch must be byte for byte the one `git format-patch` makes of
# that commit with the export's options (from the "---" on: the stat and the
# diff; the message is the export's own; names unquoted as the export's git
# is told: core.quotePath=false), and `git am` of it must give the
# clone's tree.  jail writes the scratch's blobs, trees and commits itself
# (scratchobj.h, packw.h): a tree entry out of git's order, a mode or a name
# written wrongly shows here.  This CPU's SHA instructions hash in the suite;
# the C version whole (it passed):
#   make BUILD=build-sha1c CFLAGS="-O2 -g -DJAIL_SHA1_C_ONLY" build-sha1c/jail
#   BUILD=build-sha1c tests/run integration/exportdiff

DIFF_GEN="$TESTS/../scripts/export-diff-change.sh"

# The diffstat and the diff: from the first "---" line on.
diff_part() { sed -n '/^---$/,$p'; }

# cr_attributes REPO: "PATH -diff" for each path of HEAD's change whose file
# holds '\r' on either side, as the export writes them (patch.c: such files
# go as binary patches; `git am` would strip the '\r' of a text one).
cr_attributes() {
	local meta path om nm oo no
	git -C "$1" diff-tree -r -z --no-renames HEAD~1 HEAD | while IFS= read -r -d '' meta; do
		IFS= read -r -d '' path
		read -r om nm oo no _ <<<"${meta#:}"
		if { [[ $om == 100* ]] && git -C "$1" cat-file blob "$oo" | grep -q $'\r'; } ||
			{ [[ $nm == 100* ]] && git -C "$1" cat-file blob "$no" | grep -q $'\r'; }; then
			# a glob's characters escaped, then the whole C-quoted
			path=$(printf '%s' "$path" | sed -e 's/[][*?\\]/\\&/g' -e 's/[\\"]/\\&/g')
			printf '"/%s" -diff\n' "$path"  # anchored: a bare name matches at any depth
		fi
	done
}

# differential SEED [SUB]: one round, as described above; with SUB the project
# is that subdirectory of the repository (the scratch's paths get its prefix).
differential() {
	local seed=$1 sub=${2:+/$2} r="$T/p$1" base change
	local d="$r$sub"
	base=${DIFF_BASE:-$("$DIFF_GEN" base "$seed")}
	change=${DIFF_CHANGE:-$("$DIFF_GEN" change "$seed")}
	git_init "$r"
	mkdir -p "$d"
	echo top >"$r/top.txt"
	(cd "$d" && sh -c "$base")
	git -C "$r" add -A
	git -C "$r" commit -q -m base
	run_jail ${DIFF_JAIL_ARGS:-} -D "$d" -- sh -c "cd '$d' && { $change ; }"
	assert_eq "$rc" 0 "the agent's change (seed $seed): $err"
	assert_not_contains "$err" "Left out" "nothing left out (seed $seed)"
	run_jail export ${DIFF_JAIL_ARGS:-} -D "$d" -o "$T/got$seed"
	assert_eq "$rc" 0 "jail export (seed $seed): $err"
	cp "$out" "$T/got$seed.patch"
	assert_eq "$(grep -c '^diff --git' "$T/got$seed.patch" | awk -v m="${DIFF_MIN:-3}" '$1 >= m {print "enough"}')" \
		enough "seed $seed: the patch holds several files"
	[ -z "$sub" ] || assert_contains "$(cat "$T/got$seed.patch")" "+++ b${sub}/" "seed $seed: paths under the prefix"
	# the same change, committed by git in a copy (empty directories too: a
	# step may depend on one)
	cp -a "$r" "$T/want$seed"
	(cd "$T/want$seed$sub" && sh -c "$change")
	git -C "$T/want$seed" add -A
	git -C "$T/want$seed" -c user.email=t@example.com -c user.name=Tester commit -q -m change
	cr_attributes "$T/want$seed" >"$T/want$seed.attrs"
	git -C "$T/want$seed" -c core.quotePath=false -c core.attributesFile="$T/want$seed.attrs" format-patch --stdout -1 --full-index --binary -M \
		--no-signature --no-color --subject-prefix=PATCH HEAD >"$T/want$seed.patch"
	if ! cmp -s <(diff_part <"$T/want$seed.patch") <(diff_part <"$T/got$seed.patch"); then
		diff -u <(diff_part <"$T/want$seed.patch") <(diff_part <"$T/got$seed.patch") | head -n 40 >&2
		fail "seed $seed: the export's patch differs from git's"
	fi
	# a second export takes the base blobs' '\r' answers from the session
	# (crcache.h): the same patch
	run_jail export ${DIFF_JAIL_ARGS:-} -D "$d" -o "$T/again$seed"
	assert_eq "$rc" 0 "jail export again (seed $seed): $err"
	if ! cmp -s <(diff_part <"$out") <(diff_part <"$T/got$seed.patch"); then
		fail "seed $seed: the second export's patch differs from the first's"
	fi
	# and it lands as git's commit
	git clone -q "$r" "$T/land$seed"
	git -C "$T/land$seed" -c user.email=r@example.com -c user.name=R am -q "$T/got$seed.patch"
	assert_eq "$(git -C "$T/land$seed" rev-parse 'HEAD^{tree}')" \
		"$(git -C "$T/want$seed" rev-parse 'HEAD^{tree}')" "seed $seed: the tree after git am"
}

# random_changes SEED...: the differential test for each seed.  Five seeds a
# test: ten in one took 75 s on a loaded 2-core machine, near the suite's
# 120 s for a test.
random_changes() {
	local seed
	for seed in "$@"; do
		differential "$seed"
	done
	# premise: some files held '\r' and went as binary patches
	assert_contains "$(cat "$T"/got*.patch)" "GIT binary patch" "a '\r' file among the seeds"
}

test_export_is_gits_patch_over_random_changes() {
	# more seeds: edit the lists (tests/run clears the environment); 1-80 passed
	random_changes ${EXPORTDIFF_SEEDS:-1 2 3 4 5}
}

test_export_is_gits_patch_over_more_random_changes() {
	random_changes 6 7 8 9 10
}

# The project in a subdirectory of its repository ("a.b/x y": the prefix's own
# names sort and quote like the rest).
test_export_is_gits_patch_in_a_subdirectory() {
	local seed
	for seed in 11 12 13; do
		differential "$seed" "a.b/x y"
	done
}

# Patches with one change that has no hunk or one of a kind, where the stat
# and the diff's header lines are all there is.
test_export_is_gits_patch_for_single_odd_changes() {
	local DIFF_BASE='set -e; mkdir -p d/e; seq 1 50 > d/e/moved; printf "x\n" > f; ln -s f l;
		printf "y\n" > exe; chmod 755 exe; printf "z\n" > d/only' DIFF_MIN=1 DIFF_CHANGE i=20
	for DIFF_CHANGE in 'mv d/e/moved d/e/renamed' ': > empty' 'chmod a-x exe' 'rm d/only' \
		'rm l && ln -s d/only l' 'rm f && mkdir f && : > f/x' 'rm -r d && printf "d\n" > d' \
		'chmod 664 f && chmod 611 exe' 'printf "x" > f'; do
		i=$((i + 1))
		differential "$i"
	done
}

# The stat's corner cases (diffstat.c makes it from the patch git wrote):
# names cut to the width (at a '/', or without one), renames braced by their
# common directories or not at all, a rename with a mode change, a mode
# change alone, binary sizes (a delta, a new and a deleted file, '\r' files
# by their attribute: a mode change and a pure rename), quoted names (a
# quote, a backslash; the export leaves out names with control characters),
# wide names (whose width is not their bytes), a graph scaled down beside
# 1-line changes, the totals' singular and omitted parts; and what the stat
# maker leaves to git: a typechange, a binary file's mode change.
test_export_stat_matches_gits_in_corner_cases() {
	local long='l/this is a rather long directory name/and another one beside it/deeper'
	local flat='a_very_long_file_name_without_any_directory_in_it_at_all_that_goes_on_and_on.txt'
	local wide='日本語のとても長いディレクトリ/日本語のファイル名前はここにあります.txt'
	local DIFF_MIN=1 DIFF_JAIL_ARGS= DIFF_CHANGE i=40
	local DIFF_BASE="set -e; mkdir -p '$long' d/e d/f x '${wide%/*}' 日本
		seq 1 30 > '$long/f.txt'; seq 5 9 > '$flat'; seq 100 140 > d/e/moved
		seq 200 250 > d/e/same; seq 300 360 > top; seq 1 3000 > big; printf 'x\n' > one
		seq 400 420 > gone; seq 1 4000 | tr '\n' '\0' > bin; seq 9 99 | tr '\n' '\0' > bin2
		printf 'a\r\nb\r\n' > cr; printf 'c\r\nd\r\n' > cr2; seq 500 530 > 'q\"x'
		printf 't\n' > 'back\\slash'; printf 'e\n' > é; printf 'w\n' > 日本/名前.txt; printf 'v\n' > '$wide'"
	# binary files go out with --allow-binary: then what a header alone says
	# (a mode change, a pure rename) may be of a binary file, and git makes
	# that stat; so those are in the rounds without it
	DIFF_JAIL_ARGS=--allow-binary DIFF_CHANGE="printf 'y\n' >> '$long/f.txt'
		printf 'z\n' >> '$flat'; mv d/e/moved d/e/renamed; echo 141 >> d/e/renamed
		mv top x/elsewhere; echo 361 >> x/elsewhere; seq 2 2 6000 > big; sed -i 1d gone
		sed -i 's/1234/9999/' bin; rm bin2; seq 1 99 | tr '\n' '\0' > newbin
		mv 'q\"x' 'q\"y'; echo 531 >> 'q\"y'; printf 'u\n' >> 'back\\slash'; printf 'f\n' >> é
		printf 'x\n' >> 日本/名前.txt; printf 's\n' >> '$wide'" differential 41
	i=41
	for DIFF_CHANGE in \
		"mv d/e/moved d/e/renamed; mv d/e/same d/f/same; chmod +x d/f/same; mv top x/elsewhere
		 chmod +x one cr; mv cr2 cr3; mv 'q\"x' 'q\"y'; seq 2 2 6000 > big" \
		"printf 'y\n' >> one" \
		"sed -i 1d gone" \
		"printf 'y\n' >> one; printf 'z\n' >> gone" \
		"printf 'y\n' >> '$long/f.txt'; printf 'z\n' >> '$flat'; printf 'y\n' >> one" \
		"printf 's\n' >> '$wide'; printf 'x\n' >> 日本/名前.txt; sed -i 1d '$long/f.txt'" \
		"seq 1 2 5000 > big; printf 'y\n' >> one; sed -i 1d gone; rm d/e/moved"; do
		i=$((i + 1))
		differential "$i"
	done
	DIFF_JAIL_ARGS=--allow-binary DIFF_CHANGE="chmod +x bin; mv cr2 cr3; printf 'y\n' >> one" \
		differential 50
	DIFF_CHANGE="rm one; ln -s top one; printf 'y\n' >> gone" differential 51
}
