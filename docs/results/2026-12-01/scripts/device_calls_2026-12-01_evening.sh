# The device calls of 2026-12-01, 18:13-18:52 UTC, in order (each ran as `bash .device/prof/sN.sh`
# from the repository root, with .device carried). Sources in .device/prof/: main.cu is cd2f9ef,
# chunkdraw3.cu is 45633bd, v7.cu is 6c17ec6; the other variants are the patches beside this file.
# timeline*.py and make_timeline.py are their final versions: the earlier timelines (1-4) came from
# versions without the occupancy line, the buffer offset or the seed-parity halves.
# s11 did not run: no machine was lent after s10.
# ---- device call s1.sh
set -x
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
timeout 200 python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --source $P/chunkdraw.cu > $OUT/check51_chunkdraw.txt 2>&1; echo "check rc $?"
tail -3 $OUT/check51_chunkdraw.txt
timeout 150 python3 $P/ab.py $P/main.cu $P/chunkdraw.cu -- b64 b128 b256 b1 > $OUT/ab14_chunkdraw.txt 2>&1; echo "ab rc $?"
cat $OUT/ab14_chunkdraw.txt
SEED=4895346326106889238 timeout 60 python3 $P/ab.py $P/main.cu $P/chunkdraw.cu -- b128 b64 >> $OUT/ab14_chunkdraw.txt 2>&1
tail -2 $OUT/ab14_chunkdraw.txt
timeout 120 compute-sanitizer --tool racecheck --racecheck-report all python3 $P/race.py $P/chunkdraw.cu b128 > $OUT/racecheck_b128_chunkdraw.txt 2>&1; echo "race rc $?"
tail -15 $OUT/racecheck_b128_chunkdraw.txt
timeout 60 compute-sanitizer --tool memcheck python3 $P/race.py $P/chunkdraw.cu b64 > $OUT/memcheck_b64_chunkdraw.txt 2>&1; echo "mem rc $?"
tail -4 $OUT/memcheck_b64_chunkdraw.txt
# ---- device call s2.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 $P/timeline.py $P/tl_main.cu $P/tl_chunkdraw.cu -- b64 b256 b128 b1 2>&1 | tee $OUT/timeline1.txt
# ---- device call s3.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --source $P/chunkdraw2.cu > $OUT/check52_chunkdraw2.txt 2>&1; echo "check rc $?"
grep -c PASS $OUT/check52_chunkdraw2.txt; grep -v PASS $OUT/check52_chunkdraw2.txt | tail -5
timeout 150 python3 $P/ab.py $P/main.cu $P/chunkdraw.cu $P/chunkdraw2.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab15_chunkdraw2.txt
timeout 100 python3 $P/timeline.py $P/tl_main.cu $P/tl_chunkdraw2.cu -- b64 b128 2>&1 | tee $OUT/timeline2.txt
# ---- device call s4.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 250 python3 $P/timeline.py $P/tl_main.cu $P/tl_chunkdraw.cu $P/tl_chunkdraw2.cu $P/tl_v2a.cu $P/tl_v2b.cu -- b64 b256 2>&1 | tee $OUT/timeline3.txt
# ---- device call s5.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --source $P/chunkdraw3.cu > $OUT/check53_chunkdraw3.txt 2>&1; echo "check rc $?"
grep -c PASS $OUT/check53_chunkdraw3.txt; tail -1 $OUT/check53_chunkdraw3.txt
timeout 150 python3 $P/ab.py $P/main.cu $P/chunkdraw.cu $P/chunkdraw3.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab16_chunkdraw3.txt
SEED=4895346326106889238 timeout 60 python3 $P/ab.py $P/main.cu $P/chunkdraw3.cu -- b128 2>&1 | tee -a $OUT/ab16_chunkdraw3.txt
timeout 100 python3 $P/timeline.py $P/tl_main.cu $P/tl_chunkdraw.cu $P/tl_chunkdraw3.cu -- b64 b128 2>&1 | grep -v "rep 2" | tee $OUT/timeline4.txt
# ---- device call s6.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --source $P/chunkdraw4.cu > $OUT/check54_chunkdraw4.txt 2>&1; echo "check rc $?"
grep -c PASS $OUT/check54_chunkdraw4.txt; tail -1 $OUT/check54_chunkdraw4.txt
timeout 150 python3 $P/ab.py $P/main.cu $P/chunkdraw3.cu $P/chunkdraw4.cu $P/chunkdraw4p.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab17_chunkdraw4.txt
SEED=4895346326106889238 timeout 60 python3 $P/ab.py $P/main.cu $P/chunkdraw4.cu $P/chunkdraw4p.cu -- b128 2>&1 | tee -a $OUT/ab17_chunkdraw4.txt
timeout 100 python3 $P/timeline.py $P/tl_main.cu $P/tl_chunkdraw4.cu -- b64 2>&1 | grep -v "rep 2" | tee $OUT/timeline5.txt
# ---- device call s7.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --source $P/v5.cu > $OUT/check55_v5.txt 2>&1; echo "check rc $?"
grep -c PASS $OUT/check55_v5.txt; tail -1 $OUT/check55_v5.txt
timeout 200 python3 $P/ab.py $P/main.cu $P/chunkdraw4p.cu $P/v5a.cu $P/v5.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab18_v5.txt
SEED=4895346326106889238 timeout 60 python3 $P/ab.py $P/main.cu $P/v5a.cu $P/v5.cu -- b128 2>&1 | tee -a $OUT/ab18_v5.txt
timeout 100 python3 $P/timeline.py $P/tl_main.cu $P/tl_v5a.cu $P/tl_v5.cu -- b64 b128 2>&1 | grep -v "rep 2" | tee $OUT/timeline6.txt
# ---- device call s8.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --source $P/v6.cu > $OUT/check56_v6.txt 2>&1; echo "check rc $?"
grep -c PASS $OUT/check56_v6.txt; tail -1 $OUT/check56_v6.txt
timeout 200 python3 $P/ab.py $P/main.cu $P/v5a.cu $P/v6.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab19_v6.txt
SEED=4895346326106889238 timeout 60 python3 $P/ab.py $P/main.cu $P/v6.cu -- b128 b64 2>&1 | tee -a $OUT/ab19_v6.txt
# ---- device call s9.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 $P/timeline_graph.py $P/tl_main.cu $P/tl_v5a.cu $P/tl_v6.cu -- b64 b128 2>&1 | tee $OUT/timeline_graph1.txt
# ---- device call s10.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 200 python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --source $P/v7.cu > $OUT/check57_v7.txt 2>&1; echo "check rc $?"
grep -c PASS $OUT/check57_v7.txt; tail -1 $OUT/check57_v7.txt
timeout 200 python3 $P/ab.py $P/main.cu $P/v6.cu $P/v7.cu $P/v7b.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab20_v7.txt
SEED=4895346326106889238 timeout 60 python3 $P/ab.py $P/main.cu $P/v7.cu $P/v7b.cu -- b128 b64 2>&1 | tee -a $OUT/ab20_v7.txt
timeout 100 python3 $P/timeline_graph.py $P/tl_v7.cu -- b64 b128 2>&1 | tee $OUT/timeline_graph2.txt
# ---- device call s11.sh
export PYTHONUNBUFFERED=1 CPATH=$PWD/.device/root/usr/include
P=.device/prof
timeout 150 python3 $P/ab.py $P/main.cu $P/v7.cu $P/v7c.cu -- b64 b128 b256 b1 2>&1 | tee $OUT/ab21_v7c.txt
SEED=4895346326106889238 timeout 60 python3 $P/ab.py $P/v7.cu $P/v7c.cu -- b128 b64 2>&1 | tee -a $OUT/ab21_v7c.txt
timeout 120 compute-sanitizer --tool racecheck --racecheck-report all python3 $P/race.py $P/v7.cu b128 > $OUT/racecheck_b128_v7.txt 2>&1; echo "race rc $?"; tail -3 $OUT/racecheck_b128_v7.txt
timeout 90 compute-sanitizer --tool racecheck --racecheck-report all python3 $P/race.py $P/v7.cu b64 > $OUT/racecheck_b64_v7.txt 2>&1; echo "race64 rc $?"; tail -3 $OUT/racecheck_b64_v7.txt
timeout 60 compute-sanitizer --tool memcheck python3 $P/race.py $P/v7.cu b128 2 > $OUT/memcheck_b128_v7.txt 2>&1; echo "mem rc $?"; tail -3 $OUT/memcheck_b128_v7.txt
