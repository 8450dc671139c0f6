# Adds to rowprof.cu a timeline of each verifier CTA's work items (globaltimer, ns): for item n < 4,
# at d2k_row_prof[cta * 32 + 2 + 6 n]: asked, ready (flag seen), summed, arrived, done, item.
import pathlib
import sys
p = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".device/prof/rowprof.cu"); src = p.read_text()
def sub(old, new):
    global src
    assert src.count(old) == 1, (old, src.count(old))
    src = src.replace(old, new)
sub("""  wait_for_previous_kernel();
  for (;;) {
    if (threadIdx.x == 0) {
      item_shared = next_item(pb, ws);""", """  wait_for_previous_kernel();
  int nitem = 0;
  unsigned long long* vp = d2k_row_prof + blockIdx.x * 32;
  if (threadIdx.x == 0) { vp[0] = 0; vp[1] = d2k_gtime(); }
  for (;; ++nitem) {
    if (threadIdx.x == 0 && nitem < 4) vp[2 + 6 * nitem] = d2k_gtime();
    if (threadIdx.x == 0) {
      item_shared = next_item(pb, ws);
      if (nitem < 4) { vp[3 + 6 * nitem] = d2k_gtime(); vp[7 + 6 * nitem] = item_shared; vp[0] = nitem + 1; }""")
sub("""    const Totals<kProposals> above = block_totals<kProposals>(mass, count, s);""", """    if (threadIdx.x == 0 && nitem < 4) vp[4 + 6 * nitem] = d2k_gtime();
    const Totals<kProposals> above = block_totals<kProposals>(mass, count, s);""")
sub("""    D2K_PHASE(mark, 11);""", """    D2K_PHASE(mark, 11);
    if (threadIdx.x == 0 && nitem < 4) vp[5 + 6 * nitem] = d2k_gtime();""")
sub("""        if (threadIdx.x == 0) pb.samples[f.row] = token;
      }
    }
    __syncthreads();
  }""", """        if (threadIdx.x == 0) pb.samples[f.row] = token;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0 && nitem < 4) vp[6 + 6 * nitem] = d2k_gtime();
  }""")
sub("""  decide_row(pb, ws, blockIdx.x, lists_and_weights, s);
""", """  decide_row(pb, ws, blockIdx.x, lists_and_weights, s);
  if (threadIdx.x == 0) d2k_row_prof[blockIdx.x * 32 + 27] = d2k_flag_time;
""")
sub("""  const unsigned slot = atomicAdd(&ws.counters[kRowsFlagged], 1u);""", """  const unsigned slot = atomicAdd(&ws.counters[kRowsFlagged], 1u);
  d2k_row_prof[row * 32 + 28] = slot;""")
sub("""  store_release(&ws.flag_ready[slot], 1u);""", """  store_release(&ws.flag_ready[slot], 1u);
  d2k_row_prof[row * 32 + 27] = d2k_gtime();""")
src = src.replace("  if (threadIdx.x == 0) d2k_row_prof[blockIdx.x * 32 + 27] = d2k_flag_time;\n", "")
p.write_text(src)
