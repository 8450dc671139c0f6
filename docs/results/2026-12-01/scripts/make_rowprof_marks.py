# Adds to a rowprof.cu (make_rowprof.py's output) the clocks at which a wide row's four drawing
# warps finish their proposals (row slots 27-30) and its last warp finishes weighing the list
# (slot 31); rowprof.py prints their medians. python3 make_rowprof_marks.py ROWPROF.cu
import pathlib, sys
p = pathlib.Path(sys.argv[1]); src = p.read_text()
def sub(old, new):
    global src
    assert src.count(old) == 1, (old, src.count(old))
    src = src.replace(old, new)
sub("""  if (wide && warp < kProposals) {
    const Proposal p = my_draw.finish(draw_elements[warp]);
    if (lane == 0) drawn[warp] = p;
  } else if (wide) {""", """  if (wide && warp < kProposals) {
    const Proposal p = my_draw.finish(draw_elements[warp]);
    if (lane == 0) drawn[warp] = p;
    if (lane == 0) d2k_row_prof[row * 32 + 27 + warp] = clock64();
  } else if (wide) {""")
sub("""    const float mass_of_warp = warp_sum(listed_mass);
    const int count_of_warp = __reduce_add_sync(kFull, listed_count);""", """    const float mass_of_warp = warp_sum(listed_mass);
    const int count_of_warp = __reduce_add_sync(kFull, listed_count);
    if (lane == 0 && warp == kMaxWarps - 1) d2k_row_prof[row * 32 + 31] = clock64();""")
p.write_text(src)
