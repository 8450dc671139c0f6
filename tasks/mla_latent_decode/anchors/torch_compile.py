"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own."""

import importlib.util
from pathlib import Path

import torch

_SPEC = importlib.util.spec_from_file_location(
    "mla_latent_decode_reference", Path(__file__).resolve().parent.parent / "reference.py")
_REFERENCE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_REFERENCE)
_COMPILED = torch.compile(_REFERENCE.run, dynamic=False)


def run(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale):
    return _COMPILED(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale)
