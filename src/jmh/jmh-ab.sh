#!/usr/bin/env bash
# Two builds of hintmap side by side in JMH, alternating one fork of each per round, so both see the
# same minutes of a noisy machine (the no-regression check of a refactor). Each DIR is a checkout
# built with:
#   ./mvnw -B -Pjmh clean test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt \
#       -Dmdep.includeScope=test -Dhintmap.native.skip=true -Dhintmap.man.skip=true
# Usage: src/jmh/jmh-ab.sh OLD_DIR NEW_DIR [ROUNDS] [OUT]   (prints per-fork scores and the median ratio)
set -euo pipefail
OLD=$1 NEW=$2 ROUNDS=${3:-2} OUT=${4:-$(mktemp -d)}
mkdir -p "$OUT"
J=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
# the JVM flags of the pom's hintmap.bench.jvm.args that the benchmark stores need
ARGS="--enable-native-access=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/sun.nio.ch=ALL-UNNAMED"
RUN=${JMH_RUN:--f 1 -wi 3 -w 1s -i 5 -r 1s} # JMH_RUN='-f 1 -wi 0 -i 1 -r 100ms' for a smoke run
QUERIES=${JMH_QUERIES:-'QueryBench.readInto_1t$'} # e.g. 'QueryBench.(readInto_1t|isHot_1t|handleReadInto_1t)$' 
EXTRA=${JMH_EXTRA:-} # benchmarks run with their own @Params (no store), e.g. 'LongNameBench|NamePathBench.encodeAndHash$'
run() { # side dir round
    local cp="$2/target/test-classes:$2/target/classes:$(cat "$2/cp.txt")"
    (cd "$2" && "$J" $ARGS -cp "$cp" org.openjdk.jmh.Main 'RecordBench.existing_1t$' -p store=HINTMAP,HINTMAP_REGION \
        $RUN -rf json -rff "$OUT/$1-record-$3.json" \
     && "$J" $ARGS -cp "$cp" org.openjdk.jmh.Main "$QUERIES" -p store=HINTMAP \
        $RUN -rf json -rff "$OUT/$1-query-$3.json" \
     && if [ -n "$EXTRA" ]; then "$J" $ARGS -cp "$cp" org.openjdk.jmh.Main "$EXTRA" \
        $RUN -rf json -rff "$OUT/$1-extra-$3.json"; fi) > "$OUT/$1-$3.log" 2>&1
}
for round in $(seq 1 "$ROUNDS"); do
    run old "$OLD" "$round"
    run new "$NEW" "$round"
done
python3 - "$OUT" <<'PY'
import json, glob, statistics as st, sys, os
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    side = os.path.basename(f).split('-')[0]
    for b in json.load(open(f)):
        ps = b.get('params', {})
        key = (b['benchmark'].rsplit('.', 2)[-2] + '.' + b['benchmark'].rsplit('.', 1)[-1] + ' ' + ps.get('store', '')
               + ''.join(f' {k}={v}' for k, v in sorted(ps.items()) if k != 'store'))
        rows.setdefault(key, {}).setdefault(side, []).append(b['primaryMetric']['score'])
for k, v in rows.items():
    o, n = v['old'], v['new']
    print(f"{k}: old {[round(x, 1) for x in o]} new {[round(x, 1) for x in n]} "
          f"median {st.median(o):.2f} -> {st.median(n):.2f} ns, new/old {st.median(n) / st.median(o):.3f}")
PY
