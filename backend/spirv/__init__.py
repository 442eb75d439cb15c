"""SPIR-V backend: structured IR -> Vulkan compute SPIR-V (see emit.py), plus spirv-val/spirv-dis helpers."""
