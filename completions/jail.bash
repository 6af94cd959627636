# bash completion for jail(1): subcommands, flags, session names, policy names.
# Installed by `make install` as share/bash-completion/completions/jail.

_jail_policy_dirs="@DATADIR@/policies"

# Session names of the project (-D DIR on the line, else the current directory).
_jail_sessions() {
	local dir=. i
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case ${COMP_WORDS[i]} in
		-D | --dir) dir=${COMP_WORDS[i + 1]} ;;
		--dir=*) dir=${COMP_WORDS[i]#--dir=} ;;
		esac
	done
	dir=${dir/#\~/$HOME}
	dir=${dir//\\ / }  # as typed: "my\ project"
	command jail list -D "$dir" 2>/dev/null | awk 'NR == 1 && $1 != "SESSION" { exit } NR > 1 { print $1 }'
}

# Policy names: the shipped ones and the user's own (without .ini).
_jail_policies() {
	local d f
	for d in "${XDG_CONFIG_HOME:-$HOME/.config}/jail/policies" ${JAIL_POLICY_PATH:-} \
		$_jail_policy_dirs; do
		for f in "$d"/*.ini; do
			[ -e "$f" ] || continue
			f=${f##*/}
			printf '%s\n' "${f%.ini}"
		done
	done | sort -u
}

_jail_flags() { # SUBCOMMAND: the flags it takes
	local export_flags="--export-deny --export-allow --allow-binary --max-size --squash --no-trailer"
	case $1 in
	run) printf '%s\n' -D --dir -s --session -p --policy -q --quiet --net --allow \
		--dns-upstream --publish --ro --rw --cow --hide --show --hide-start-only --hide-ignored --secret-name --tmpfs -e --env --path --setenv --home \
		--copy --secret --memory --pids --cpus --disk --disk-inodes --allow-syscall --no-export $export_flags \
		-h --help -V --version ;;
	exec) printf '%s\n' -D --dir -s --session -h --help ;;
	reset) printf '%s\n' -D --dir -s --session --all -h --help ;;
	rm) printf '%s\n' -D --dir -s --session -h --help ;;
	stop) printf '%s\n' -D --dir -s --session --timeout -h --help ;;
	list) printf '%s\n' -D --dir --all -h --help ;;
	diff) printf '%s\n' -D --dir -s --session $export_flags --stat --name-status --color \
		--color=always --color=never --color=auto -h --help ;;
	export) printf '%s\n' -D --dir -s --session $export_flags -o --output -m --message -h --help ;;
	status) printf '%s\n' -D --dir -s --session $export_flags -h --help ;;
	apply) printf '%s\n' -D --dir -s --session $export_flags -3 --three-way --accept-flagged -m --message -h --help ;;
	policy) printf '%s\n' -D --dir -p --policy -h --help ;;
	trust) printf '%s\n' -D --dir --revoke -h --help ;;
	*) printf '%s\n' -h --help -V --version ;;
	esac
}

_jail() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local subcommands="run exec reset rm list ps stop doctor diff export status policy trust apply help version"
	local sub="" i w
	COMPREPLY=()
	# after `--` (or once the command has started) complete the command
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ "$w" = -- ]; then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			return
		fi
		if [ -z "$sub" ] && [[ " $subcommands " == *" $w "* ]] && [ $i -eq 1 ]; then
			sub=$w
		fi
	done
	case $prev in
	# one name a line, and bash quotes them: directory names with spaces work
	-D | --dir | -o | --output)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	-s | --session) COMPREPLY=($(compgen -W "$(_jail_sessions)" -- "$cur")); return ;;
	-p | --policy) COMPREPLY=($(compgen -W "$(_jail_policies)" -- "$cur")); return ;;
	--net) COMPREPLY=($(compgen -W "none allow open" -- "$cur")); return ;;
	--home) COMPREPLY=($(compgen -W "fresh persistent" -- "$cur")); return ;;
	--hide-ignored) COMPREPLY=($(compgen -W "all secrets none" -- "$cur")); return ;;
	--ro | --rw | --cow | --tmpfs | --copy)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	-e | --env) COMPREPLY=($(compgen -v -- "$cur")); return ;;
	--path) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--allow | --dns-upstream | --publish | --hide | --show | --secret-name | --setenv | --secret | \
		--memory | --pids | --cpus | --disk | --disk-inodes | --allow-syscall | --export-deny | \
		--export-allow | --max-size | --timeout)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_jail_flags "${sub:-run}")" -- "$cur"))
	elif [ "$sub" = help ] && [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
	elif [ "$sub" = policy ] && [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "show list" -- "$cur"))
	elif [ -z "$sub" ] && [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
	elif [ -z "$sub" ] || [ "$sub" = run ] || [ "$sub" = exec ]; then
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
	elif [[ " diff status export apply reset " == *" $sub "* ]]; then
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}
complete -F _jail jail
