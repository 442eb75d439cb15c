"""Gen9 register files as numbers: what a code generator writes into operands and the simulator reads.

ARF numbers are the encoded register field of an architecture-register operand (Mesa brw_eu_defines.h
BRW_ARF_*, the same numbers iga64 prints by name); fields.ARF maps iga64's names to them.
"""
from __future__ import annotations

from .fields import ARF

ARF_NULL = ARF["null"]
ARF_ADDRESS = ARF["a0"]
ARF_ACC = ARF["acc0"]
ARF_FLAG = ARF["f0"]
ARF_MASK = ARF["ce"]
ARF_STATE = ARF["sr0"]
ARF_CONTROL = ARF["cr0"]
ARF_NOTIFICATION = ARF["n0"]
ARF_IP = ARF["ip"]
ARF_TIMESTAMP = ARF["tm0"]

GRF_SIZE = 32          # bytes per general register
NUM_GRF = 128          # r0..r127 per hardware thread
