# Device calls of the session 2026-12-01 19:35-22:35 UTC, in order, each from the repository root
# with .device carried. The scripts ran from .device/prof/s2/ (here: this folder); the sources
# they name are main.cu = 6c17ec6, nb.cu = 1b60910, hist3.cu = d93f72d, and the variants as patches.
# The archived flags.py, rows.py and timeline2.py, and the earlier ab.py, timeline.py and
# timeline_graph.py, take their shared setup from sampling_setup.py; otherwise they are as they ran,
# but for timeline.py's buffer: it read the archived make_timeline.py's 16 MB timeline into 8 MB.

# --- call 1
# Session 2026-12-01 evening-2, call 1: d2k eval of main's sampling expert, A/B of v7c, then sanitizers.
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
nvidia-smi --query-gpu=name,driver_version --format=csv
bash tools/gpu_check.sh 'suite=topk_topp_sampling/expert'
cp $OUT/gpu_check.log $OUT/gpu_check_eval.log
timeout 150 python3 .device/prof/ab.py tasks/topk_topp_sampling/expert/solution.cu .device/prof/v7c.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab21_v7c.txt
SEED=4895346326106889238 timeout 60 python3 .device/prof/ab.py tasks/topk_topp_sampling/expert/solution.cu .device/prof/v7c.cu -- b64 b128 2>&1 | tee -a $OUT/ab21_v7c.txt
rm -f $OUT/gpu_check.log
timeout 200 bash tools/gpu_check.sh sanitize

# --- call 2
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s2; S=tasks/topk_topp_sampling/expert/solution.cu
nvcc -arch=sm_90a -lineinfo -o /tmp/race_probe $P/race_probe.cu && compute-sanitizer --tool racecheck --racecheck-report all /tmp/race_probe 2>&1 | tee $OUT/race_probe.txt | tail -30
python3 $P/flags.py $S b128 3750787881105285768 1234 4895346326106889238 1 2 3 4 5 6 7 8 9 2>&1 | tee $OUT/flags_b128.txt
python3 $P/flags.py $S b64 4918462553931141973 1234 4895346326106889238 1 2 2>&1 | tee $OUT/flags_b64.txt
python3 $P/timeline2.py $P/tl2.cu b128 3750787881105285768 1234 2 2>&1 | tee $OUT/timeline2_b128.txt

# --- call 3
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s2; D=tasks/topk_topp_sampling/expert/ncu_driver.py
nvcc -arch=sm_90a -lineinfo -o /tmp/rp2 $P/race_probe2.cu
for mode in 0 1 2 3 4 5 6 7; do compute-sanitizer --tool racecheck --racecheck-report all /tmp/rp2 $mode 2>&1 | grep "mode\|SUMMARY"; done 2>&1 | tee $OUT/race_probe2.txt
echo "=== timeline2"
python3 -X faulthandler $P/timeline2.py $P/tl2.cu b128 3750787881105285768 1234 2 > $OUT/timeline2_b128.txt 2>&1; echo "exit $?"; cat $OUT/timeline2_b128.txt | tail -20
echo "=== racecheck r1 b64"
timeout 120 compute-sanitizer --tool racecheck --racecheck-report all python3 $D $P/r1.cu b64 2 --lineinfo > /tmp/r1.log 2>&1; echo "exit $?"; grep "SUMMARY" /tmp/r1.log; grep -o "solution.cu:[0-9]*\|r1.cu:[0-9]*" /tmp/r1.log | sort | uniq -c | tee $OUT/racecheck_r1_b64.txt

# --- call 4
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s2; D=tasks/topk_topp_sampling/expert/ncu_driver.py
python3 $P/rows.py $P/tl2.cu b128 3750787881105285768 8 1234 > $OUT/rows_b128.txt 2>&1; echo "exit $?"; cat $OUT/rows_b128.txt
echo "=== racecheck r2 b64 (block barrier instead of the named one)"
timeout 120 compute-sanitizer --tool racecheck --racecheck-report all python3 $D $P/r2.cu b64 2 --lineinfo > /tmp/r2.log 2>&1; echo "exit $?"; grep "SUMMARY" /tmp/r2.log; grep -o "r2.cu:[0-9]*" /tmp/r2.log | sort | uniq -c | tee $OUT/racecheck_r2_b64.txt
for mode in 5; do compute-sanitizer --tool racecheck --racecheck-report all /tmp/rp2 $mode 2>&1 | head -30; done > $OUT/race_probe2_mode5.txt 2>&1
nvcc -arch=sm_90a -lineinfo -o /tmp/rp2 $P/race_probe2.cu && compute-sanitizer --tool racecheck --racecheck-report all /tmp/rp2 5 2>&1 | head -24 | tee $OUT/race_probe2_mode5.txt

# --- call 5
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s2; D=tasks/topk_topp_sampling/expert/ncu_driver.py; C=tasks/topk_topp_sampling/expert/check.py
timeout 200 python3 $C --impl expert --full --draws 1000 --source $P/hist.cu > $OUT/check_hist.txt 2>&1; echo "check exit $?"; grep -i "fail\|error\|passed\|case" $OUT/check_hist.txt | tail -30
timeout 120 python3 .device/prof/ab.py $P/main.cu $P/nb.cu $P/hist.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab_hist.txt
for seed in 3750787881105285768 8; do SEED=$seed timeout 40 python3 .device/prof/ab.py $P/main.cu $P/nb.cu $P/hist.cu -- b128 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_hist.txt; done
python3 $P/rows.py $P/tl_hist.cu b128 3750787881105285768 > $OUT/rows_hist.txt 2>&1; head -8 $OUT/rows_hist.txt
for label in b64 b128; do timeout 100 compute-sanitizer --tool racecheck --racecheck-report all python3 $D $P/hist.cu $label 2 --lineinfo > /tmp/rc.log 2>&1; echo "racecheck hist $label exit $?"; grep "SUMMARY" /tmp/rc.log; grep -o "hist.cu:[0-9]*" /tmp/rc.log | sort | uniq -c; done 2>&1 | tee $OUT/racecheck_hist.txt

# --- call 6
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s2; C=tasks/topk_topp_sampling/expert/check.py
timeout 200 python3 $C --impl expert --full --draws 1000 --source $P/hist2.cu > $OUT/check_hist2.txt 2>&1; echo "check exit $?"; grep -ic "fail" $OUT/check_hist2.txt; tail -3 $OUT/check_hist2.txt
timeout 150 python3 .device/prof/ab.py $P/main.cu $P/hist.cu $P/hist2.cu -- b1 b256 b64 b128 2>&1 | tee $OUT/ab_hist2.txt
for seed in 3750787881105285768 8 4895346326106889238; do SEED=$seed timeout 40 python3 .device/prof/ab.py $P/main.cu $P/hist2.cu -- b128 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_hist2.txt; done
SEED=4918462553931141973 timeout 40 python3 .device/prof/ab.py $P/main.cu $P/hist2.cu -- b64 2>&1 | sed "s/^/seed 4918462553931141973: /" | tee -a $OUT/ab_hist2.txt

# --- call 7
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s2
python3 $P/phases.py $P/main.cu $P/hist2.cu 2>&1 | tee $OUT/phases_hist2.txt
SEED=3750787881105285768 python3 $P/phases.py $P/main.cu $P/hist2.cu 2>&1 | grep "deepseek\|phases of" | tee -a $OUT/phases_hist2.txt

# --- call 8
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof/s2; D=tasks/topk_topp_sampling/expert/ncu_driver.py; C=tasks/topk_topp_sampling/expert/check.py
timeout 200 python3 $C --impl expert --full --draws 1000 --source $P/hist3.cu > $OUT/check_hist3.txt 2>&1; echo "check exit $?"; grep -c "PASS" $OUT/check_hist3.txt; grep -i "fail" $OUT/check_hist3.txt; tail -1 $OUT/check_hist3.txt
timeout 150 python3 .device/prof/ab.py $P/main.cu $P/hist2.cu $P/hist3.cu -- b1 b256 b64 b128 2>&1 | tee $OUT/ab_hist3.txt
for seed in 3750787881105285768 8 4895346326106889238; do SEED=$seed timeout 40 python3 .device/prof/ab.py $P/main.cu $P/hist3.cu -- b128 2>&1 | sed "s/^/seed $seed: /" | tee -a $OUT/ab_hist3.txt; done
python3 $P/phases.py $P/hist3.cu 2>&1 | tee $OUT/phases_hist3.txt
python3 $P/rows.py $P/tl_hist3.cu b128 3750787881105285768 > $OUT/rows_hist3.txt 2>&1; head -6 $OUT/rows_hist3.txt
for label in b128 b256; do timeout 100 compute-sanitizer --tool racecheck --racecheck-report all python3 $D $P/hist3.cu $label 2 --lineinfo > /tmp/rc.log 2>&1; echo "racecheck hist3 $label exit $?"; grep "SUMMARY" /tmp/rc.log; grep -o "hist3.cu:[0-9]*" /tmp/rc.log | sort | uniq -c; done 2>&1 | tee $OUT/racecheck_hist3.txt

# --- call 9: the final evaluation and sanitizers of d93f72d
bash tools/gpu_check.sh 'suite=topk_topp_sampling/expert' sanitize
