#!/usr/bin/env bash
# export-diff-change.sh base|change SEED — a random mixed change for the
# differential test of `jail export` against plain git
# (tests/integration/exportdiff.sh).  Prints a POSIX sh script to run in the
# project's directory: `base` makes the files the host commits, `change` what
# the agent then does.  The same SEED always gives the same script.
#
# The names are the ones git orders or quotes in ways that are easy to get
# wrong: "a.b", "a-", "a0" beside a directory "a" (git sorts a directory as if
# it ended in '/'), bytes above 0x7f, quotes, backslashes, brackets and stars
# (pathspec magic), dots.  The changes: edits, additions, deletions, exec bits
# on and off, modes 0664 and 0654, empty files, symlinks inside the tree, a
# file replaced by a directory and back, a directory deleted and made again
# (an opaque directory), renames, deep directories, empty directories, many
# files; now and then "\r\n" line ends (the test marks those files -diff for
# git, as the export does).  Text only, nothing the export leaves out, so the
# patch must be the one git makes for the same commit.
set -euo pipefail

mode=${1:?usage: export-diff-change.sh base|change SEED}
S=${2:?usage: export-diff-change.sh base|change SEED}

# Our own generator, called in this shell (never in $(...), whose subshell
# would not advance it): R gets a number below 2^23.
rnd() { S=$(((S * 1103515245 + 12345) % 2147483648)); R=$((S >> 8)); }

NAMES=(a a.b a- a0 a_ 'a b' b b.c 'q"uote' 'back\slash' 'é' '日本.txt' '..x' '...' 'x..'
	'-dash' '#hash' '*star' '[br]' '~t' 'Ä' z z.d 'a.b.c' 'sp ace.md')

DIRS=(a b a.b z.d)  # the base's directories

# shq WORD: WORD quoted for sh (single quotes; a quote inside as '\'').
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# shp PATH: PATH quoted, after "./" (a name may start with '-').
shp() { shq "./$1"; }

# P gets a name, L a line of text that differs by seed and step.
pick() { rnd; P=${NAMES[R % ${#NAMES[@]}]}; }
line() { rnd; L="line $R $1"; }
# E gets a line's end: now and then "\r\n" (such a file goes as a binary patch)
eol() { rnd; if [ $((R % 6)) = 0 ]; then E='\r\n'; else E='\n'; fi; }

base() {
	echo 'set -e'
	echo 'printf "stable\n" > keep.txt'
	local d f l1 l2
	for d in "${DIRS[@]}"; do
		pick
		echo "mkdir -p $(shp "$d/$P")"
		for _ in 1 2 3; do
			pick; f="$d/$P"
			line 1; l1=$L
			line 2; l2=$L
			eol
			echo "[ -d $(shp "$f") ] || printf '%s$E%s$E' $(shq "$l1") $(shq "$l2") > $(shp "$f")"
		done
	done
	for f in a- a0 a_ b.c 'q"uote' 'back\slash' 'é' '...' '[br]'; do
		line 3
		eol
		echo "printf '%s$E' $(shq "$L") > $(shp "$f")"
	done
	echo 'printf "#!/bin/sh\n" > tool && chmod 755 tool'
	echo 'mkdir -p deep/1/2/3/4/5/6/7/8 && printf "d\n" > deep/1/2/3/4/5/6/7/8/f'
	echo 'seq 1 200 > moved.txt'
}

# One random step, on files that may or may not be there (each command
# checks first, so the script never fails halfway).
step() {
	local i=$1 d n m f
	pick; d=$P
	rnd
	[ $((R % 3)) = 0 ] || d=${DIRS[R % ${#DIRS[@]}]}  # mostly where the base has files
	pick; n=$P
	pick; m=$P
	line "$i"
	eol
	f=$(shp "$d/$n")
	rnd
	case $((R % 14)) in
	0) echo "[ -f $f ] && printf '%s$E' $(shq "$L") >> $f || true" ;;
	1) echo "[ -f $f ] && rm -f $f || true" ;;
	2) echo "{ mkdir -p $(shp "$d") && printf '%s$E' $(shq "$L") > $f; } 2>/dev/null || true" ;;
	3) echo "[ -f $f ] && chmod a+x $f || true" ;;
	4) echo "[ -f $f ] && chmod a-x $f || true" ;;
	5) echo "{ [ -f $f ] && chmod 664 $f; [ -f $(shp "$n") ] && chmod 654 $(shp "$n"); } || true" ;;
	6) echo "[ -d $(shp "$d") ] && [ ! -e $f ] && [ ! -L $f ] && ln -s ../keep.txt $f || true" ;;
	7) echo "[ -f $f ] && rm -f $f && mkdir $f && printf 'in\n' > $(shp "$d/$n/$m") || true" ;;
	8) echo "[ -d $(shp "$d") ] && rm -rf $(shp "$d") && printf 'was a dir\n' > $(shp "$d") || true" ;;
	9) echo "[ -d $(shp "$d") ] && rm -rf $(shp "$d") && mkdir $(shp "$d") && printf 'again\n' > $f || true" ;;
	10) echo "[ -f $f ] && [ ! -L $f ] && [ ! -e $(shp "$n") ] && mv $f $(shp "$n") || true" ;;
	11) echo "{ [ -d $(shp "$d") ] && : > $(shp "$d/empty-$i"); mkdir -p $(shp "empty-dir-$i"); } || true" ;;
	12) echo "mkdir -p $(shp "deep/1/2/3/4/5/6/7/8/$n") && printf 'deep\n' > $(shp "deep/1/2/3/4/5/6/7/8/$n/$i") || true" ;;
	*) echo "[ -f $(shp "$n") ] && printf '%s$E' $(shq "$L") > $(shp "$n") || true" ;;
	esac
}

change() {
	echo 'set -e'
	rnd
	local steps=$((20 + R % 40)) i
	for i in $(seq 1 "$steps"); do
		step "$i"
	done
	echo 'mv moved.txt renamed.txt && echo 201 >> renamed.txt'
	echo 'chmod a-x tool'
	rnd
	if [ $((R % 3)) = 0 ]; then  # many files in one directory
		echo 'mkdir -p many && for i in $(seq 1 400); do printf "%s\n" "$i" > many/f$i; done'
	fi
}

case $mode in
base) base ;;
change) change ;;
*) echo "export-diff-change.sh: unknown mode '$mode' (base or change)" >&2; exit 125 ;;
esac
