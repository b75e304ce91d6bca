#!/usr/bin/env bash
# The GPU proofs of the timing path, the harness core and the anti-cheat layers, as named steps so
# they can be spread over device calls. The store is runs/h200.db (carry that file between calls: every
# step resumes from it); the store and everything written go to OUTDIR/results.tgz at the end
# (a device call brings back only a few files). After every call run `bash benchmarks/take_results.sh
# FILES_AT` before the next: carrying it sends this machine's store, not the one the last call wrote
# (carry the file, not runs/: the unpacked results of earlier calls there outgrow what a call takes;
# a call carries at most 64 MiB, so carry a copy with only the runs it needs: benchmarks/slim_store.py).
#   run1      the README's run on the GPU with timing: every layer on small+large, then --perf
#             (KGB_RETIME=op,op: delete those operators' timings in the run first, to time them again;
#             KGB_TIMERS: timing jobs at once on the GPU, default 4; KGB_NO_SANDBOX=1: unconfined workers)
#   sandbox   whether workers can be confined here, then the escape corpus on the GPU platform
#   gputests  the GPU-only tests (crash on illegal access, cuBLAS baseline, matmul tolerance)
#   cheats    the CUDA-only cheats (L3, TF32, side stream)
#   corpus    the whole cheat corpus on the GPU
#   genuine   the genuine corpus (honest kernels in many idioms): every layer on small+large, timed
#   aa        A/A: the native baseline timed against itself on every perf case (of KGB_AA_OPS, default
#             the 16-operator slice)
#   caches    the answer caches of the cheat corpus, judged, timed, and beside their no-cache twins
#             (KGB_CACHES_BEFORE=DIR: each timed alone by the package in DIR/src instead, an older
#             checkout's, carried; KGB_CACHES: only these file stems; KGB_CACHES_UNVERIFIED=1: timed with
#             their twins, not verified again)
#   fidelity  event time against the profiler's kernel time
#   graph     CUDA-graph timing mode on a few operators (small tier), with its report
#   run2      a second, independent run of the reference solutions with timing (small tier)
#   random    the statistical judge on honest samplers (torch's and the Triton solutions) over seeds
#   record    report, repeatability and throughput files from the store
#   agreement the cuBLAS references against libcublas on every small and large case (a table;
#             KGB_AGREEMENT_OPS: only these routines)
#   profile   where a timing worker's time goes (cProfile of KGB_PROFILE_OPS, each timed in a fresh process
#             after its verification filled its Triton cache, as in a run)
#   probe     which fork-server imports load the CUDA driver, and whether a worker forked after them
#             still computes on the GPU (benchmarks/preload_probe.py; a few seconds)
#   transfer  how long a float64 truth's device-to-host copy takes, pageable against pinned, one process and
#             four at once (benchmarks/transfer_probe.py; under a minute)
#   mixed     the throughput benchmark's second figure: five mixed candidates per operator
#             (benchmarks/mixed_candidates.py; KGB_OPS or KGB_SOURCE: which), judged and timed as
#             run KGB_MIXED_NAME (default h200-mixed), then its throughput record
# Usage: bash benchmarks/h200_speed.sh OUTDIR STEP...   (KGB_BUDGET: seconds for the whole script, set-up
# and packing included, default 540; keep it 30 s under the call's limit. A step that would overrun is
# cut (45 s are kept for cutting it and packing), the rest skipped, and the results still packed:
# session G lost a whole call's results to a budget of 578 s in a 600-s call, the set-up uncounted.
# The call's limit is the smaller of its timeout and the device time left once a cold machine has
# started: session L's last call got 454 s of a 554-s balance, ran on a budget of 570 and lost it all.
# Read `status` first and take KGB_BUDGET from the lesser)
set -uo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: h200_speed.sh OUTDIR STEP...}
shift
out=runs/out
mkdir -p "$out" "$dest"
export PYTHONUNBUFFERED=1
end=$((SECONDS + ${KGB_BUDGET:-540} - 45))
py=$(bash scripts/setup.sh)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv > "$out/nvidia-smi.csv" 2>&1
db=runs/h200.db
run=${KGB_RUN_NAME:-h200-reference}  # run1's name (KGB_OPS or KGB_SOURCE: its operators; KGB_QUICK=1: quick timing;
perf=--perf; [ "${KGB_PERF:-1}" = 0 ] && perf=--no-perf  # KGB_PERF=0: judge only, time in a later call)
# the 16-operator slice: the A/A's operators unless KGB_AA_OPS names others
slice=cublas::cublasSaxpy_v2,aten::index_select,vllm::rotary_embedding,aten::rsqrt,aten::softmax,aten::cumsum
slice=$slice,cublas::cublasDgemv_v2,vllm::fused_add_rms_norm,aten::mul,aten::add,aten::sum,aten::silu,aten::mean
slice=$slice,cublas::cublasSgemm_v2,vllm::rms_norm,aten::mm
box=; [ -n "${KGB_NO_SANDBOX:-}" ] && box=--no-sandbox  # KGB_NO_SANDBOX=1: run1 unconfined (the sandbox's cost)
for step in "$@"; do
  left=$((end - SECONDS))
  if [ $left -lt 30 ]; then echo "== skipped $step: out of time"; continue; fi
  echo "== $step $(date +%T.%N), $left s left"
  t="timeout -s INT -k 20 $left"
  # how busy the GPU is (kernels running, per half second) while the step runs
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -lms 500 > "$out/smi-$step.csv" 2>&1 &
  smi=$!
  case $step in
    run1) # what the carried store holds of this run: a resumed run that starts from fewer timings than
          # the last call left was given an old store (session I lost a call so)
          "$py" - "$db" "$run" <<'PY'
import sqlite3, sys
with sqlite3.connect(sys.argv[1]) as c:
    n = [c.execute(f"SELECT COUNT(*) FROM {t} x JOIN attempts a ON a.id = x.attempt_id JOIN runs r ON r.id = "
                   "a.run_id WHERE r.name = ?", (sys.argv[2],)).fetchone()[0] for t in ("verdicts", "timings")]
    print(f"carried store: run {sys.argv[2]} has {n[0]} verdicts and {n[1]} timings")
PY
          if [ -n "${KGB_RETIME:-}" ]; then  # time these operators of the run again (a rule or case changed)
            "$py" - "$db" "$run" "$KGB_RETIME" <<'PY'
import sqlite3, sys
db, run, ops = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
with sqlite3.connect(db) as c:
    gone = c.execute("DELETE FROM timings WHERE attempt_id IN (SELECT a.id FROM attempts a JOIN runs r ON "
                     f"r.id = a.run_id WHERE r.name = ? AND a.op IN ({','.join('?' * len(ops))}))", [run, *ops])
    print(f"retime: {gone.rowcount} timing rows of {run} deleted")
PY
          fi
          $t "$py" -m kernelgenbench.cli run --method reference --device cuda $perf \
            ${KGB_OPS:+--ops "$KGB_OPS"} ${KGB_SOURCE:+--source "$KGB_SOURCE"} ${KGB_QUICK:+--quick-timing} \
            --db $db --name "$run" --workers "${KGB_WORKERS:-12}" ${KGB_TIMERS:+--timers "$KGB_TIMERS"} $box 2>&1 \
            | tee -a "$out/run1.log" ;;
    sandbox) # whether workers can be confined here, and the escape corpus on the GPU platform (its
             # workers see the GPU's device nodes), the CUDA IPC escape included
             "$py" -c "from kernelgenbench.sandbox import confine; print('confine.problem():', confine.problem())" \
               2>&1 | tee "$out/sandbox-probe.txt"
             KGB_ESCAPE_DEVICE=cuda $t "$py" -m pytest -q -p no:cacheprovider tests/test_escapes.py --sweep full -rA \
               2>&1 | tee "$out/escapes-cuda.log" ;;
    gputests) $t "$py" -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py 2>&1 | tee "$out/gpu-tests.log" ;;
    corpus) # every cheat, not the daily sample; the interpreter-only variants (without the static scan)
            # cannot run there: the device's numpy (2.5) is too new for Triton 3.6's interpreter
            KGB_CHEAT_DEVICE=cuda $t "$py" -m pytest -q -p no:cacheprovider tests/test_cheats.py --sweep full \
              -k test_cheat_is_caught -rA 2>&1 | tee "$out/corpus-cuda.log" ;;
    genuine) $t "$py" benchmarks/genuine.py --out "$out" --device cuda --workers "${KGB_WORKERS:-8}" \
               --under "${KGB_GENUINE_UNDER:-}" ${KGB_GENUINE_QUICK:+--quick-timing} 2>&1 | tee -a "$out/genuine.log" ;;
    cheats) $t "$py" -m pytest -q -p no:cacheprovider tests/test_cheats.py \
              -k "tf32_matmul or library_kernel_on_device or timing_side_stream" 2>&1 | tee "$out/cheats-cuda.log" ;;
    random) $t "$py" benchmarks/random_judge.py --device cuda --seeds "${KGB_RANDOM_SEEDS:-100}" \
              --large-seeds "${KGB_RANDOM_LARGE_SEEDS:-3}" --out "$out" 2>&1 | tee "$out/random-judge.log" ;;
    aa) $t "$py" benchmarks/speed.py aa --out "$out" --ops "${KGB_AA_OPS:-$slice}" 2>&1 | tee "$out/aa.log" ;;
    caches) if [ -n "${KGB_CACHES_BEFORE:-}" ]; then
              PYTHONPATH="$PWD/$KGB_CACHES_BEFORE/src" $t "$py" benchmarks/cache_cheats.py --out "$out" --before \
                --tag cache-cheats-before-h200 --only "${KGB_CACHES:-}" 2>&1 | tee "$out/caches-before.log"
            else
              $t "$py" benchmarks/cache_cheats.py --out "$out" --only "${KGB_CACHES:-}" \
                ${KGB_CACHES_UNVERIFIED:+--no-verify --tag cache-cheats-unverified-h200} 2>&1 | tee "$out/caches.log"
            fi ;;
    fidelity) $t "$py" benchmarks/speed.py fidelity --out "$out" 2>&1 | tee "$out/fidelity.log" ;;
    graph) $t "$py" -m kernelgenbench.cli run --method reference --device cuda --perf --graph --tiers small \
             --ops "${KGB_GRAPH_OPS:-aten::add,aten::softmax,aten::mean,vllm::rms_norm,cublas::cublasSaxpy_v2}" \
             --db $db --name h200-graph --workers "${KGB_WORKERS:-12}" 2>&1 | tee -a "$out/graph.log"
           "$py" benchmarks/record_run.py --db $db --run h200-graph --out "$out" --tag graph-h200 ;;
    run2) $t "$py" -m kernelgenbench.cli run --method reference --device cuda --perf \
            --tiers small --db $db --name h200-rep2 --workers "${KGB_WORKERS:-12}" 2>&1 | tee -a "$out/run2.log" ;;
    record)
      "$py" benchmarks/record_run.py --db $db --run "$run" --out "$out" --tag "${KGB_TAG:-reference-h200}"
      "$py" benchmarks/speed.py throughput --db $db --run "$run" --out "$out"
      "$py" benchmarks/speed.py repeatability --db $db --runs "$run",h200-rep2 --out "$out" ;;
    agreement) $t "$py" benchmarks/cublas_agreement.py --sizes small,large --seeds "${KGB_AGREEMENT_SEEDS:-2}" \
                 ${KGB_AGREEMENT_OPS:+--update --ops "$KGB_AGREEMENT_OPS"} \
                 --out "$out" 2>&1 | tee "$out/cublas-agreement.log" ;;
    profile) $t "$py" benchmarks/profile_timing.py --out "$out" \
               --ops "${KGB_PROFILE_OPS:-aten::neg,aten::clone,cublas::cublasSgemm_v2,vllm::rms_norm}" 2>&1 \
               | tail -n 400 > "$out/profile-timing.log" ;;
    probe) $t "$py" benchmarks/preload_probe.py 2>&1 | tee "$out/preload-probe.txt" ;;
    transfer) $t "$py" benchmarks/transfer_probe.py 2>&1 | tee "$out/transfer-probe.txt" ;;
    mixed) mixed=${KGB_MIXED_NAME:-h200-mixed}
           "$py" benchmarks/mixed_candidates.py --out runs/mixed ${KGB_OPS:+--ops "$KGB_OPS"} \
             ${KGB_SOURCE:+--source "$KGB_SOURCE"}
           $t "$py" -m kernelgenbench.cli run --method files --dir runs/mixed --device cuda --perf --quick-timing \
             --no-copy-check ${KGB_OPS:+--ops "$KGB_OPS"} ${KGB_SOURCE:+--source "$KGB_SOURCE"} --db $db \
             --name "$mixed" --workers "${KGB_WORKERS:-12}" ${KGB_TIMERS:+--timers "$KGB_TIMERS"} 2>&1 \
             | tee -a "$out/mixed.log"
           "$py" benchmarks/speed.py throughput --db $db --run "$mixed" --tag "throughput-$mixed" --out "$out" ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  pkill -f kernelgenbench.sandbox.worker 2>/dev/null  # workers of a step that was cut
  kill $smi 2>/dev/null
  echo "== $step ended $(date +%T.%N)"  # with its start above: the command's whole time, set-up included
done
"$py" -c "import sqlite3; sqlite3.connect('$db').execute('PRAGMA wal_checkpoint(TRUNCATE)')"
cp $db "$out/h200.db"
tar czf "$dest/results.tgz" -C runs out
echo "== done $(date +%T)"
