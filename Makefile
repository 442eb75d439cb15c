# Two entry points for a fresh Debian machine: `make demo` and `make test`.
VENV      ?= .venv
PY        := $(VENV)/bin/python
# Debian packages the project drives through subprocess (installed only when run as root).
DEB_PKGS  := clang-22 libigc-tools spirv-tools graphviz python3-venv mesa-vulkan-drivers libvulkan1 spirv-headers \
             pocl-opencl-icd ocl-icd-libopencl1 glslang-tools cvise intel-opencl-icd
DEB_TOOLS := clang-22 iga64 spirv-val dot glslangValidator cvise ocloc spirv-opt
# Files (not commands) from DEB_PKGS: the lavapipe Vulkan driver, the SPIR-V grammar, PoCL's OpenCL ICD.
DEB_FILES := /usr/share/vulkan/icd.d/lvp_icd.*.json /usr/include/spirv/unified1/spirv.core.grammar.json \
             /etc/OpenCL/vendors/pocl.icd

.PHONY: demo test deps bench fuzz clean

$(VENV)/.deps: pyproject.toml
	@missing=""; for t in $(DEB_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	for f in $(DEB_FILES); do [ -e "$$f" ] || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages for:$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(DEB_PKGS); \
	  else echo "warning: missing$$missing; run 'sudo apt-get install $(DEB_PKGS)'"; fi; \
	fi
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

deps: $(VENV)/.deps

demo: deps
	$(PY) -m reconverge.tools.demo

test: deps
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -n auto -q -p no:cacheprovider

# issue 26's table, every figure beside its anchor in one run (QUICK=1: fewer runs, smaller sizes)
bench: deps
	$(PY) -m reconverge.tools.bench_all $(if $(QUICK),--quick)

.PHONY: bench-structurize
bench-structurize: deps
	$(PY) -m reconverge.tools.bench_structurize

.PHONY: bench-spirv
bench-spirv: deps
	$(PY) -m reconverge.tools.bench_spirv

fuzz: deps
	$(PY) -m reconverge.tools.fuzz_structurize --seconds 600

clean:
	rm -rf $(VENV) build *.egg-info
