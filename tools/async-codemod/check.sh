#!/bin/bash
# usage: check.sh prefix... — type errors and suspicious promise uses in files under the prefixes (paths relative to /work/async)
cd /work/async
cfg=tsconfig.codemod.$$.json
cp /work/codemod/tsconfig.base.json $cfg
/work/codemod/node_modules/.bin/tsc -p $cfg > /tmp/tsc.$$.txt 2>&1
rm -f $cfg
pattern=$(printf "^%s\\|" "$@"); pattern=${pattern%\\|}
echo "== type errors"; grep "error TS" /tmp/tsc.$$.txt | grep "$pattern"
echo "== suspicious promise uses (not awaited where a value is meant; async callbacks to array methods)"
cd /work/codemod && node suspicious.mjs "$@"
rm -f /tmp/tsc.$$.txt
