# Device calls of the session 2026-12-01 20:56-, in order (run from the repository root with .device carried;
# the sources were in .device/prof/s3: main.cu = d93f72d, the variants as the patches beside this file).

# ---- call1.sh
# Session 2026-12-01 (20:56-) call 1: gate of `all` (rawmax + relaxed + tmcopy), A/B of every variant.
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s3; C=tasks/topk_topp_sampling/expert/check.py
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
date -u
timeout 170 python3 $C --impl expert --full --draws 1000 --source $P/all.cu > $OUT/check_all.txt 2>&1; echo "check all exit $?"; tail -2 $OUT/check_all.txt
date -u
timeout 200 python3 $P/ab.py $P/main.cu $P/relaxed.cu $P/rawmax.cu $P/tmcopy.cu $P/all.cu $P/flat.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab_call1.txt
date -u
for seed in 3574117970552655498 77; do SEED=$seed timeout 60 python3 $P/ab.py $P/main.cu $P/tmcopy.cu $P/all.cu -- b64 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_call1.txt; done
date -u
timeout 90 python3 $P/phases.py $P/main.cu $P/all.cu 2>&1 | tee $OUT/phases_call1.txt
date -u

# ---- call2.sh
# Call 2: gates of direct_tm and ds16, then an A/B of relaxed2 (relaxed on main), direct (wide rows
# read their lists by plain loads, no first barrier), direct_tm (+ thread masses by bulk copy),
# sample16 (every 16th token sampled for the depth), ds16 (direct + sample16).
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s3; C=tasks/topk_topp_sampling/expert/check.py
date -u
for v in direct_tm ds16; do timeout 120 python3 $C --impl expert --full --draws 1000 --source $P/$v.cu > $OUT/check_$v.txt 2>&1; echo "check $v exit $?"; tail -2 $OUT/check_$v.txt; done
date -u
timeout 240 python3 $P/ab.py $P/main.cu $P/relaxed2.cu $P/direct.cu $P/direct_tm.cu $P/sample16.cu $P/ds16.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab_call2.txt
date -u
SEED=77 timeout 80 python3 $P/ab.py $P/main.cu $P/relaxed2.cu $P/direct.cu $P/ds16.cu -- b64 b128 2>&1 | sed "s/^/seed 77: /" | tee -a $OUT/ab_call2.txt
date -u
timeout 90 python3 $P/phases.py $P/relaxed2.cu $P/ds16.cu 2>&1 | tee $OUT/phases_call2.txt
date -u

# ---- call3.sh
# Call 3: gates of sample32 and s16tm; A/B of main, sample16 (relaxed + 1/16 depth sample), sample32,
# s16tm (sample16 + thread masses by bulk copy), s16dtm (sample16 + direct lists + thread masses).
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s3; C=tasks/topk_topp_sampling/expert/check.py
date -u
for v in sample32 s16tm; do timeout 120 python3 $C --impl expert --full --draws 1000 --source $P/$v.cu > $OUT/check_$v.txt 2>&1; echo "check $v exit $?"; tail -2 $OUT/check_$v.txt; done
date -u
timeout 240 python3 $P/ab.py $P/main.cu $P/sample16.cu $P/sample32.cu $P/s16tm.cu $P/s16dtm.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab_call3.txt
date -u
for seed in 77 3574117970552655498; do SEED=$seed timeout 70 python3 $P/ab.py $P/main.cu $P/sample16.cu $P/sample32.cu $P/s16tm.cu $P/s16dtm.cu -- b64 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_call3.txt; done
for seed in 3750787881105285768 8; do SEED=$seed timeout 70 python3 $P/ab.py $P/main.cu $P/sample16.cu $P/sample32.cu $P/s16tm.cu $P/s16dtm.cu -- b128 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_call3.txt; done
date -u
timeout 60 python3 $P/phases.py $P/sample32.cu 2>&1 | tee $OUT/phases_call3.txt
date -u

# ---- call4.sh
# Call 4: the committed source (final.cu = 458844c's solution.cu): check.py's full gate, then
# d2k eval through gpu_check.sh with the sanitizers, then an A/B against d93f72d (main.cu) on seeds.
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s3; C=tasks/topk_topp_sampling/expert/check.py
date -u
timeout 100 python3 $C --impl expert --full --draws 1000 > $OUT/check_final.txt 2>&1; echo "check final exit $?"; tail -2 $OUT/check_final.txt
date -u
timeout 380 tools/gpu_check.sh 'suite=topk_topp_sampling/expert' sanitize > /dev/null 2>&1; echo "gpu_check exit $?"
grep -E "PASS|FAIL|passed|failed|µs|us |%SOL|sanitize|ERROR|hazard|errors" $OUT/gpu_check.log | tail -30
date -u
for seed in 1234 77 3574117970552655498; do SEED=$seed timeout 40 python3 $P/ab.py $P/main.cu $P/final.cu -- b64 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_final.txt; done
for seed in 1234 8; do SEED=$seed timeout 40 python3 $P/ab.py $P/main.cu $P/final.cu -- b128 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_final.txt; done
date -u

# ---- call 5
tools/gpu_check.sh floor 'suite=topk_topp_sampling/expert'
