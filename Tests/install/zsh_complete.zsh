# zsh -f zcomp.zsh DIR "words so far": the candidates zsh's completion system
# offers for the last word, one per line, through a real interactive zsh (zpty).
zmodload zsh/zpty
dir=$1 line=$2
zpty z zsh -f -i
zpty -w z "PS1=''; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-grouped false"
# compadd -O collects the matches instead of adding them; each is printed once.
zpty -w z 'compadd() { local -a __m; builtin compadd -O __m "$@"; print -rl -- "<m>"${^__m}; builtin compadd "$@" }'
zpty -w z '_forcetrace_list() { print -r -- "<begin>"; _main_complete; print -r -- "<end>" }'
zpty -w z 'zle -C forcetrace-list complete-word _forcetrace_list; bindkey "^T" forcetrace-list'
zpty -w z 'print -r -- "<ready>"'
out=""
for i in {1..200}; do
  zpty -r -t z chunk && out+=$chunk || sleep 0.05
  [[ $out == *"<ready>"*"<ready>"* ]] && break
done
zpty -w -n z "$line"$'\C-t'
out=""
for i in {1..400}; do
  zpty -r -t z chunk && out+=$chunk || sleep 0.05
  [[ $out == *"<end>"* ]] && break
done
zpty -d z
[[ $out == *"<end>"* ]] || { print -u2 "zcomp: no completion ran for: $line"; exit 1 }
print -r -- "$out" | tr -d '\r' | sed -n 's/^.*<m>\(.*\)$/\1/p' | sort -u
