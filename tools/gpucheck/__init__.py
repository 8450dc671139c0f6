"""The GPU check: builds d2k on a GPU host and runs named steps that call `d2k` (tools/gpu_check.sh)."""
