# CUDA Labs: a graded CUDA workbook in C.
#
#   make grade [LAB=01|vector-add] [SOLUTION=1] [ARGS="--case n=31"] [POLICY=f]
#   make check [LAB=01]  compile warning-free, static checks (no GPU needed)
#   make test        build everything (every skeleton, solution, the grader)
#                    and run the unit tests; GPU suites skip without a GPU
#   make help        every target, variable and exit code
#   make clean
#
# Variables you may set: CUDA_HOME, CUDNN_HOME, GPU_ARCH ("80 90"), V=1,
# WERROR=1, BUILD, CC, NO_APT=1, POLICY (a course's grading policy file).

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
# gcc unless the environment or the command line names another compiler
# (make's own default, cc, does not count)
ifeq ($(origin CC),default)
  CC := gcc
endif
SANITIZE  ?= 0
# SANITIZE=1: the grader's host code (parent, judge, runner, tests) built
# with AddressSanitizer and UndefinedBehaviorSanitizer, into its own tree
ifeq ($(SANITIZE),1)
  BUILD   ?= build/sanitize
  SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
  export ASAN_OPTIONS ?= protect_shadow_gap=0:detect_leaks=0:abort_on_error=1
  export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
else
  BUILD   ?= build
  SAN     :=
endif
V         ?= 0
WERROR    ?= 0
LAB       ?=
SOLUTION  ?= 0
ARGS      ?=
# a course's grading policy (JSON over grader/parent/policy.json): every way of
# grading takes it (grade, bench, grade-class, grade-class-slurm, autograder)
POLICY    ?=

# a literal comma, for use inside $(if ...)
, := ,

Q := $(if $(filter 1,$(V)),,@)
say = $(if $(filter 1,$(V)),,@printf '  %-7s %s\n' $(1) $(2);)

# every rule is written here: make's built-in ones only slow it down, and
# would chain a dependency file to a compile (foo.d from foo.d.o)
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

# ---- parallel by default --------------------------------------------------
# The build runs one job per core unless the command line (or MAKEFLAGS in
# the environment) asks for its own -j: `make -j1 test` keeps its one job.
# Only the top-level make decides; a sub-make shares its parent's jobs.
ifeq ($(MAKELEVEL),0)
  USER_JOBS := $(shell for a in $$(tr '\0' ' ' < /proc/$$PPID/cmdline 2>/dev/null) $$MAKEFLAGS; do \
                 case $$a in (--jobs*) echo y;; (--*) ;; (-*j*) echo y;; esac; done)
  ifeq ($(USER_JOBS),)
    MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
  endif
endif

# ---- dependencies: Check and cJSON (installed by `make deps`) -------------
# Asked of pkg-config when a recipe first needs them, not when the Makefile
# is read: on a fresh machine `deps` installs the packages in this very run,
# before anything compiles (every compile waits for it), and the flags are
# those of the installed packages. Each is computed once (memoized).
memo = $(eval $(1) := $(2))$($(1))
PKG_OK      = $(call memo,PKG_OK,$(shell pkg-config --exists check libcjson 2>/dev/null && echo 1))
DEP_CFLAGS  = $(call memo,DEP_CFLAGS,$(if $(PKG_OK),$(shell pkg-config --cflags libcjson check)))
CJSON_LIBS  = $(call memo,CJSON_LIBS,$(if $(PKG_OK),$(shell pkg-config --libs libcjson),-lcjson))
CHECK_LIBS  = $(call memo,CHECK_LIBS,$(if $(PKG_OK),$(shell pkg-config --libs check),-lcheck -lsubunit -lrt -lm -pthread))

# ---- cuDNN: CUDNN_HOME, the toolkit, or the system paths ------------------
# (x86_64 and aarch64 hosts: Debian's multiarch folders, and the toolkit's
# targets/ folders, sbsa-linux on Arm servers such as GH200)

MULTIARCH  := x86_64-linux-gnu aarch64-linux-gnu
CUDA_TGTS  := $(CUDA_HOME)/targets/x86_64-linux $(CUDA_HOME)/targets/sbsa-linux
ifdef CUDNN_HOME
  CUDNN_INC := $(CUDNN_HOME)/include
  CUDNN_SO  := $(firstword $(wildcard $(CUDNN_HOME)/lib64/libcudnn.so* $(CUDNN_HOME)/lib/libcudnn.so* $(foreach m,$(MULTIARCH),$(CUDNN_HOME)/lib/$(m)/libcudnn.so*)))
else
  CUDNN_H   := $(firstword $(wildcard $(CUDA_HOME)/include/cudnn.h $(foreach t,$(CUDA_TGTS),$(t)/include/cudnn.h) $(foreach m,$(MULTIARCH),/usr/include/$(m)/cudnn.h) /usr/include/cudnn.h /usr/local/cudnn/include/cudnn.h))
  CUDNN_INC := $(patsubst %/,%,$(dir $(CUDNN_H)))
  CUDNN_SO  := $(firstword $(wildcard $(CUDA_HOME)/lib64/libcudnn.so $(foreach t,$(CUDA_TGTS),$(t)/lib/libcudnn.so) $(foreach m,$(MULTIARCH),/usr/lib/$(m)/libcudnn.so) $(CUDA_HOME)/lib64/libcudnn.so.9 $(foreach t,$(CUDA_TGTS),$(t)/lib/libcudnn.so.9) $(foreach m,$(MULTIARCH),/usr/lib/$(m)/libcudnn.so.9) /usr/local/cudnn/lib64/libcudnn.so))
endif
CUDNN_DIR  := $(patsubst %/,%,$(dir $(CUDNN_SO)))
CUDNN_LINK := $(if $(CUDNN_SO),-L$(CUDNN_DIR) -l:$(notdir $(CUDNN_SO)) -Wl$(,)-rpath$(,)$(CUDNN_DIR),-lcudnn)

# ---- GPU architectures ----------------------------------------------------

NVCC_MAJOR := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
HAVE_GPU   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
# the GPU's compute capability ("90"), asked of the driver here: the
# confined build of a submission reaches no GPU (no -arch=native there)
GPU_CC     := $(if $(HAVE_GPU),$(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .'))
OLDEST_SM  := $(if $(filter 1 2 3 4 5 6 7 8 9 10 11 12,$(NVCC_MAJOR)),70,75)
# Hopper (9.0) builds sm_90a, its architecture-specific features (wgmma,
# setmaxnreg: Lab 3's last rung) on top of sm_90's; an sm_90a binary runs
# on compute capability 9.0 only, so a fat build adds compute_90 PTX for
# later GPUs
arch_gencode = $(if $(filter 90,$(1)),-gencode arch=compute_90a$(,)code=sm_90a,-gencode arch=compute_$(1)$(,)code=sm_$(1))
ifneq ($(GPU_ARCH),)
  ARCH_FLAGS := $(foreach a,$(GPU_ARCH),$(call arch_gencode,$(a)))
else ifneq ($(GPU_CC),)
  ARCH_FLAGS := $(call arch_gencode,$(GPU_CC))
else ifeq ($(HAVE_GPU),1)
  ARCH_FLAGS := -arch=native
else
  ARCH_FLAGS := -gencode arch=compute_$(OLDEST_SM),code=sm_$(OLDEST_SM) \
                -gencode arch=compute_80,code=sm_80 \
                -gencode arch=compute_90a,code=sm_90a \
                -gencode arch=compute_90,code=compute_90
endif

# ---- flags ----------------------------------------------------------------

LAB_DIRS  := $(sort $(wildcard labs/[0-9][0-9]-*))
LAB_NAMES := $(notdir $(LAB_DIRS))
# grader code names its folder ("judge/harness.h", "specs/refs.h": the
# grader's spec of each lab), a lab's interface its lab ("05-gru/gru.h",
# under the students' labs/), the shared helpers their file ("errcheck.h")
INCLUDES  := -Icommon -Igrader -Ilabs \
             -I$(CUDA_HOME)/include $(if $(CUDNN_INC),-I$(CUDNN_INC))
# gcc 14 makes these errors by default (Debian 13, Fedora 40, Arch): every
# compiler here does, so the first build of a newer machine does not stop
WARN      := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
             -Werror=implicit-function-declaration -Werror=implicit-int \
             -Werror=int-conversion -Werror=incompatible-pointer-types
# Ubuntu's gcc (the GPU hosts') fortifies by default and then warns of an
# unchecked result that Debian's never sees: the host C code is fortified
# on every compiler (SANITIZE=1 adds none: the sanitizers check more)
FORTIFY   := $(if $(filter 1,$(SANITIZE)),,-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2)
CL_VERSION := $(shell cat VERSION 2>/dev/null || echo 0)
CFLAGS     = -std=c11 -O2 -g -pthread $(SAN) $(FORTIFY) $(WARN) $(INCLUDES) $(DEP_CFLAGS) -MMD -MP \
             -DCL_VERSION='"$(CL_VERSION)"' \
             -DCL_ROOT='"$(CURDIR)"'
NVFLAGS   := -std=c++17 -O3 $(ARCH_FLAGS) -Xcompiler -Wall,-Wextra $(INCLUDES)
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart \
             -lcublas $(CUDNN_LINK)
LDLIBS     = $(CUDA_LIBS) $(CJSON_LIBS) -lseccomp -lcapstone -lstdc++ -ldl -lm -pthread
# the runner: the CUDA runtime and CUPTI, never cuBLAS or cuDNN (a lab that
# forbids them must find them nowhere in the process that runs the student)
RUNNER_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart \
               -lcupti -lseccomp -lstdc++ -lm

# cuBLAS for the labs that allow it (5 and 6); --as-needed keeps it out of
# the others, where the symbol check rejects its use anyway
SO_LIBS   := -L$(CUDA_HOME)/lib64 -Xlinker --as-needed \
             -Xlinker -rpath=$(CUDA_HOME)/lib64 -lcublas
# a submission: one shared library per lab, loaded by the grader. NVTX
# off: Thrust and CUB annotate with it, and its loader imports dlopen,
# which the static check refuses in every lab
SO_FLAGS  := -std=c++17 -O3 $(ARCH_FLAGS) -shared \
             -DNVTX_DISABLE -DCCCL_DISABLE_NVTX \
             -Xcompiler -fPIC,-Wall,-Wextra$(if $(filter 1,$(WERROR)),$(,)-Werror) \
             -cudart shared $(SO_LIBS)

# ---- objects --------------------------------------------------------------
# The link sets follow grader/'s folders, which follow the processes:
#   grade      parent/ (no CUDA), judge/, specs/, protocol/ and common/
#   cl-runner  runner/, protocol/ and the few common files it names: no
#              judge, no spec, no cuBLAS or cuDNN in the process that runs
#              the student's code

src_of = $(wildcard $(1)/*.c) $(wildcard $(1)/*.cu)
obj_of = $(patsubst %.c,$(BUILD)/obj/%.o,$(filter %.c,$(1))) \
         $(patsubst %.cu,$(BUILD)/obj/%.cu.o,$(filter %.cu,$(1)))

COMMON_SRC   := $(call src_of,common)
PROTOCOL_SRC := $(call src_of,grader/protocol)
PARENT_SRC   := $(filter-out grader/parent/main.c,$(call src_of,grader/parent))
JUDGE_SRC    := $(call src_of,grader/judge) $(call src_of,grader/specs)
# audit.c is no part of the runner: the loader's audit library beside it
CONFINE_SRC  := $(call src_of,grader/confine)
RUNNER_SRC   := $(filter-out grader/runner/audit.c,$(call src_of,grader/runner)) \
                $(CONFINE_SRC) $(PROTOCOL_SRC) common/fatal.c

LIBCORE    := $(BUILD)/lib/libcudalabs.a
GRADER     := $(BUILD)/bin/grade
RUNNER     := $(BUILD)/bin/cl-runner
AUDIT      := $(BUILD)/bin/cl-audit.so
# the confined build of a submission (grader/compile/build.c)
CLBUILD    := $(BUILD)/bin/cl-build
CORE_OBJ   := $(call obj_of,$(COMMON_SRC) $(PROTOCOL_SRC) $(PARENT_SRC) \
                $(JUDGE_SRC)) $(BUILD)/obj/gen/policy_default.o
RUNNER_OBJ := $(call obj_of,$(RUNNER_SRC))
# the self-test lab's submissions: plain C, built with the host compiler
SELFTEST_SO := $(patsubst grader/tests/selftest/%.c,$(BUILD)/selftest/%.so,$(wildcard grader/tests/selftest/*.c))

STUDENT_SO  := $(LAB_NAMES:%=$(BUILD)/student/%.so)
SOLUTION_SO := $(patsubst %,$(BUILD)/solution/%.so,$(notdir $(wildcard solutions/[0-9][0-9]-*)))
# Lab 4's reference again, built for the 4 KB kernel-parameter limit
SOLUTION_SO += $(if $(wildcard solutions/04-multi-tensor-apply),$(BUILD)/solution/04-multi-tensor-apply-4k.so)
FIXTURE_SO  := $(patsubst grader/tests/fixtures/%.cu,$(BUILD)/fixtures/%.so,$(wildcard grader/tests/fixtures/*/*.cu))
# the suites that assert no time measured on a GPU (the unit suites, the
# self-test lab's sandbox on the CPU, the command line, the release, the
# class batches, the GPU's faults): run-suites.sh runs them side by side
# on a machine of many cores, the longest first; then test_gpu alone,
# whose timings need an idle GPU
TESTS_SIDE  := $(addprefix $(BUILD)/tests/test_,batch sandbox faults release \
                 protocol cli common refs lab6_data specs checks measure score \
                 policy symbols pins report)
TESTS_ALONE := $(BUILD)/tests/test_gpu
TESTS       := $(TESTS_SIDE) $(TESTS_ALONE)
# the class batches, the longest, as three suites (test_batch's Check cases)
SUITES_SIDE := $(addprefix $(BUILD)/tests/test_batch@,classes exports short) \
                 $(filter-out %/test_batch,$(TESTS_SIDE))

# LAB=01, 1, vector-add or 01-vector-add -> the lab's directory name
lab_dir = $(firstword $(notdir $(wildcard labs/$(1)-* labs/0$(1)-* labs/*-$(1) labs/$(1))))
# the one file a lab grades: NAME.cu beside the lab's interface NAME.h
# (`grade NN --which` names the same file; test_release checks it)
lab_src = $(patsubst %.h,%.cu,$(firstword $(wildcard labs/$(1)/*.h)))
# shell: src= the file lab $$l grades, lab_src of each lab of GRADE_LABS
# (a lab it does not know: src empty)
rp := )
lab_src_sh = case $$l in $(foreach d,$(GRADE_LABS),$(d)$(rp) src='$(call lab_src,$(d))';;) *$(rp) src=;; esac
# shell: name every other .cu file of lab $(1) (a shell word) as not graded
# ($(2): the graded file); spaces and quotes in names are safe
note_others = for f in labs/$(1)/*.cu; do [ ! -e "$$f" ] || [ "$$f" = "$(2)" ] || echo "note: $$f is not graded: the grade builds $(2) alone" >&2; done
# --policy for the grader when POLICY is set (its path made absolute)
POLICY_ARG := $(if $(POLICY),--policy $(abspath $(POLICY)))
GRADE_LABS := $(if $(LAB),$(foreach w,$(LAB),$(or $(call lab_dir,$(w)),$(w))),$(LAB_NAMES))
VARIANT    := $(if $(filter 1,$(SOLUTION)),solution,student)
# the builds of LAB's code (every lab's without LAB) that grade, demo,
# bench, memcheck and profile take
LAB_SO     := $(foreach l,$(GRADE_LABS),$(if $(wildcard labs/$(l)),$(BUILD)/$(VARIANT)/$(l).so))
# a lab's graded file gone (moved, renamed, deleted): said, never the old
# build graded in its place (make keeps a build whose source is missing:
# every target is secondary here, see .SECONDARY)
MISSING_SRC := $(strip $(foreach l,$(if $(filter 1,$(SOLUTION)),,$(GRADE_LABS)),$(if $(wildcard labs/$(l)/*.h),$(if $(wildcard $(call lab_src,$(l))),,$(call lab_src,$(l))))))
ifneq ($(MISSING_SRC),)
ifneq ($(filter grade check bench demo memcheck profile peers all,$(or $(MAKECMDGOALS),all)),)
  $(error $(firstword $(MISSING_SRC)) is missing: it is the one file its lab grades (git checkout -- $(firstword $(MISSING_SRC)) brings back the skeleton))
endif
endif
# the shell loop of those targets: $(1) for each lab (its name in $$l), the
# last failure's code kept; with $(2) = stop, an exit 3 (no GPU) ends it
for_labs = rc=0; for l in $(GRADE_LABS); do $(1) || rc=$$?; \
	  $(if $(2),[ $$rc -ne 3 ] || break;) done; exit $$rc

# SOLUTION is 0 (your code) or 1 (the reference), nothing else; a handout
# (no solutions/) has no reference to grade
ifneq ($(filter-out 0 1,$(SOLUTION))$(word 2,$(SOLUTION)),)
  $(error SOLUTION=$(SOLUTION): use SOLUTION=1 for the reference solution, SOLUTION=0 (the default) for your code)
endif
ifeq ($(SOLUTION)$(wildcard solutions),1)
  $(error SOLUTION=1: the reference solutions are not part of the handout (this tree has no solutions/))
endif
# when this make started: make test's last line counts the build in
MAKE_T0    := $(shell date +%s)
# a maintainer's tree has the grader's own tests; a handout does not
MAINTAINER := $(if $(wildcard grader/tests/fixtures),1)

.PHONY: all fixtures grade demo test selftest bench plots tables docs memcheck profile handout \
        release-solutions grade-class grade-class-slurm build-submission \
        deps clean info \
        format format-check \
        help check autograder grader
.DEFAULT_GOAL := all
.SECONDEXPANSION:
.SECONDARY:

## all: build the grader, every skeleton and every solution
all: deps $(GRADER) $(RUNNER) $(CLBUILD) $(STUDENT_SO) $(SOLUTION_SO)

## grade: grade LAB (default: every lab) with the student's code or SOLUTION=1
## (make stops at the first lab that finds no GPU: one message, not six);
## POLICY=FILE grades with a course's policy
grade: deps $(GRADER) $(LAB_SO)
	$(Q)$(call for_labs,{ $(if $(filter 1,$(SOLUTION)),,$(lab_src_sh); \
	  $(call note_others,$$l,$$src);) \
	  $(GRADER) $$l --lib $(BUILD)/$(VARIANT)/$$l.so $(if $(filter 1,$(SOLUTION)),--solution) $(POLICY_ARG) $(ARGS); },stop)

## fixtures: the known-bad submissions the tests grade
fixtures: $(FIXTURE_SO)

## test: (maintainers) build everything and run the grader's own tests
## (GPU suites need a GPU); a handout has no tests and says so
ifeq ($(MAINTAINER),1)
test: all $(TESTS) $(FIXTURE_SO) $(SELFTEST_SO)
	$(Q)CL_MAKE_T0=$(MAKE_T0) bash grader/tests/run-suites.sh $(SUITES_SIDE) -- $(TESTS_ALONE)
else
test:
	@echo "make test is a maintainer's command: it runs the grader's own test suites,"
	@echo "which are not part of the handout. To check your lab: 'make check LAB=NN'"
	@echo "(compiles it warning-free, no GPU needed), then 'make grade LAB=NN' on a GPU."
endif

## selftest: (maintainers) grade the sandbox's hostile fixtures with the
## CPU self-test lab 00 (no GPU needed): the test_sandbox suite
ifeq ($(MAINTAINER),1)
selftest: $(GRADER) $(RUNNER) $(SELFTEST_SO) $(BUILD)/tests/test_sandbox
	$(Q)bash grader/tests/run-suites.sh $(BUILD)/tests/test_sandbox
endif

## soak: honest code must never lose a point: every reference solution and
## honest fixture graded ROUNDS times (default 1) with random seeds, each
## grading a row of SOAK_OUT/soak.tsv (default build/soak; rows add up
## across runs), the table in SOAK_OUT/soak.md; exits 1 on any false
## verdict (tools/soak.py; SANITIZE=1 also counts sanitizer reports);
## TOTAL=N instead grades each until SOAK_OUT holds N gradings of it (a
## soak cut short resumes where it stopped);
## HOSTILE=1 also grades every other fixture once a round, which must be
## caught, and writes both error rates (SOAK_OUT/rates.md); GPUS="0 1"
## grades on those GPUs side by side, one grading each at a time
ROUNDS   ?= 1
SOAK_OUT ?= $(BUILD)/soak
.PHONY: soak
ifeq ($(MAINTAINER),1)
soak: deps $(GRADER) $(RUNNER) $(SOLUTION_SO) $(FIXTURE_SO)
	$(Q)python3 tools/soak.py $(if $(TOTAL),--total $(TOTAL),--rounds $(ROUNDS)) --out $(SOAK_OUT) --build $(BUILD) \
	  $(if $(filter 1,$(HOSTILE)),--hostile) $(if $(GPUS),--gpus "$(GPUS)") \
	  $(if $(LAB),--labs $(foreach l,$(GRADE_LABS),$(firstword $(subst -, ,$(l)))))
else
soak:
	@echo "make soak is a maintainer's command: it grades the reference solutions"
	@echo "and the grader's own fixtures, which are not part of the handout."
	@exit 2
endif

## data: (maintainers, on a GPU host) the data of docs/performance.md from
## one card, by make peers then make bench for LAB (default: every lab) with
## the reference, into DATA_OUT (default build/data) with a MANIFEST naming
## the GPU and the commit; run again on the same card to go on where it
## stopped, DEADLINE=S to stop starting steps after S seconds
## (tools/data-run.sh); then copy the CSVs and MANIFEST to docs/data and
## make tables plots
DATA_OUT ?= $(BUILD)/data
.PHONY: data
ifeq ($(MAINTAINER),1)
data: deps $(GRADER) $(RUNNER) $(SOLUTION_SO)
	$(Q)DATA_OUT="$(DATA_OUT)" MAKE="$(MAKE)" bash tools/data-run.sh \
	  $(foreach l,$(GRADE_LABS),$(firstword $(subst -, ,$(l))))
else
data:
	@echo "make data is a maintainer's command: it times the reference solutions,"
	@echo "which are not part of the handout."
	@exit 2
endif

## demo: LAB's demo: Lab 6 translates held-out sentences with your code
## (SOLUTION=1: with the reference)
demo: deps $(GRADER) $(LAB_SO)
	$(Q)$(call for_labs,$(GRADER) $$l --lib $(BUILD)/$(VARIANT)/$$l.so --demo --no-color $(ARGS))

## bench: time LAB's speed cases and size sweep (SOLUTION=1: every rung);
## without a GPU it says so and fails (the grader's exit 3)
bench: deps $(GRADER) $(LAB_SO)
	$(Q)$(call for_labs,{ echo "## $$l"; GRADE="$(GRADER)" POLICY="$(abspath $(POLICY))" bash tools/bench.sh $${l%%-*} $(VARIANT); },stop)

## peers: PyTorch's ops timed beside the references and the library
## baselines on every speed case (tools/peers.py: needs a GPU and PyTorch,
## exits 9 without PyTorch, 3 without a GPU); writes PEERS_OUT/peers.md and
## peers.png. LAB=NN instead checks and times your build of that lab
## against PyTorch (SOLUTION=1: the reference's, and its graded rows into
## PEERS_OUT/grader-NN.csv for docs/data/ref-NN.csv; PEERS_LIB=path: any build)
PEERS_LIB ?=
PEERS_OUT ?= $(BUILD)/peers
PEERS_SO  := $(or $(PEERS_LIB),$(if $(LAB),$(BUILD)/$(VARIANT)/$(GRADE_LABS).so))
.PHONY: peers
peers: deps $(GRADER) $(if $(PEERS_LIB),,$(if $(LAB),$(PEERS_SO),$(SOLUTION_SO)))
	$(Q)python3 tools/peers.py --out $(PEERS_OUT) --grade $(GRADER) \
	  $(if $(LAB),--lab $(GRADE_LABS)) $(if $(PEERS_SO),--lib $(PEERS_SO)) \
	  $(if $(and $(LAB),$(filter 1,$(SOLUTION)),$(if $(PEERS_LIB),,1)),--grader-rows)

## memcheck: compute-sanitizer on LAB (memcheck; racecheck, synccheck
## when the source uses shared memory)
memcheck: deps $(GRADER) $(LAB_SO)
	$(Q)$(call for_labs,{ echo "## $$l"; [ -d labs/$$l ] || { echo "memcheck: no lab '$$l' (make memcheck LAB=NN: 01 to 06)" >&2; exit 2; }; \
	  $(lab_src_sh); \
	  GRADE="$(GRADER)" bash tools/memcheck.sh $${l%%-*} $(BUILD)/$(VARIANT)/$$l.so "$(if $(filter 1,$(SOLUTION)),solutions/$$l/$$(basename "$$src"),$$src)"; })

## profile: Nsight Compute on LAB's kernels, one representative case
profile: deps $(GRADER) $(LAB_SO)
	$(Q)$(call for_labs,{ echo "## $$l"; GRADE="$(GRADER)" bash tools/profile.sh $${l%%-*} $(BUILD)/$(VARIANT)/$$l.so; })

## grade-class: grade every submission in SUBMISSIONS (a folder or a .zip:
## one file or folder per student, or Canvas's or Gradescope's export) for
## LAB into OUT (default build/class/NN-name): results/, logs/,
## gradebook.csv. FORCE=1 re-grades; QUICK=1 rehearses (quick cases only,
## marked in the gradebook); GPUS="0 1" spreads over GPUs; TIMEOUT
## per submission; FORMAT=canvas|gradescope also writes that LMS's import;
## POLICY=FILE grades with a course's policy (kept as OUT/policy.json)
SUBMISSIONS ?=
grade-class: deps $(GRADER)
	$(Q)GRADE="$(GRADER)" POLICY="$(if $(POLICY),$(abspath $(POLICY)))" bash tools/grade-class.sh "$(LAB)" "$(SUBMISSIONS)" "$(OUT)"

## grade-class-slurm: the same as a Slurm job array, then a collect job
grade-class-slurm: deps $(GRADER)
	$(Q)GRADE="$(GRADER)" POLICY="$(if $(POLICY),$(abspath $(POLICY)))" bash tools/slurm/submit.sh "$(LAB)" "$(SUBMISSIONS)" "$(OUT)" $(SBATCH_ARGS)

# build one submission (the batch, Slurm, the Gradescope bundle):
# SRC=file.cu SO=out.so LABDIR=.. through the confined build, as the lab's
# file (SRC and SO reach the recipe through the environment: spaces,
# quotes and any letters are safe). cl-build's exit code is kept in
# SO.exit when it fails (1 does not compile, 4 reads a file outside the
# build, 6 cannot confine it). A .c file is a submission of the CPU
# self-test lab 00, built with the host compiler. CL_BUILD_STRICT=1 (the
# grading paths set it) refuses to build unconfined.
build-submission: $(CLBUILD)
	$(Q)mkdir -p "$$(dirname "$$SO")" && rm -f "$$SO.exit" && case "$$SRC" in \
	  *.c) $(CLBUILD) "$$SRC" "$$SO" -- $(CC) -std=gnu11 -O1 -shared -fPIC -Wall -Wextra ;; \
	  *) $(CLBUILD) --headers labs/$(LABDIR) --name "$$(basename "$(call lab_src,$(LABDIR))")" \
	       "$$SRC" "$$SO" -- $(NVCC) $(SO_FLAGS) ;; \
	esac || { rc=$$?; echo $$rc > "$$SO.exit"; exit $$rc; }

## handout: dist/cuda-labs-handout-VERSION.tar.gz: the tracked files of the
## shipped folders, less solutions/ and the grader's own tests; refuses
## untracked files inside them (a submissions/ folder, a scratch answer),
## tracked files edited since the last commit (EDITS=1 packs them as they
## are) and a skeleton that holds its solution.
## CLASSROOM=NN adds the GitHub Classroom workflow for lab NN
## release-solutions [LAB=..]: the chosen labs' solutions, ladders and notes
VERSION_STR := $(shell cat VERSION 2>/dev/null || echo 0)
DIST        ?= dist
CLASSROOM   ?=
handout:
	$(Q)EDITS="$(EDITS)" CLASSROOM="$(if $(CLASSROOM),$(or $(call lab_dir,$(CLASSROOM)),$(CLASSROOM)))" sh tools/release.sh handout $(DIST) $(VERSION_STR)
release-solutions:
	$(Q)sh tools/release.sh solutions $(DIST) $(VERSION_STR) $(if $(LAB),$(GRADE_LABS))

# ---- instructor and student tools: help, check, the Gradescope bundle -----

## check: compile LAB (default: every lab; SOLUTION=1: the reference) with
## host and device warnings as errors, then the grader's static checks
## (entry points, libraries): a first loop with no GPU
CHECK_FLAGS := -Xcompiler -Werror -Werror all-warnings
check: deps $(GRADER) $(CLBUILD)
	$(Q)rc=0; for l in $(GRADE_LABS); do \
	  [ -d labs/$$l ] || { echo "check: unknown lab '$$l' (make help)" >&2; rc=2; continue; }; \
	  echo "## $$l"; mkdir -p $(BUILD)/check/$(VARIANT) || exit 6; \
	  $(lab_src_sh); \
	  $(if $(filter 1,$(SOLUTION)),src=solutions/$$l/$$(basename "$$src");,$(call note_others,$$l,$$src);) \
	  $(CLBUILD) --headers labs/$$l "$$src" $(BUILD)/check/$(VARIANT)/$$l.so -- \
	    $(NVCC) $(SO_FLAGS) $(CHECK_FLAGS) || { rc=$$?; continue; }; \
	  $(GRADER) $$l --lib $(BUILD)/check/$(VARIANT)/$$l.so --check || rc=$$?; \
	done; exit $$rc

## autograder: LAB's Gradescope autograder, dist/autograder-NN-name.zip
## (setup.sh, run_autograder; docs/instructor.md says how to use it);
## POLICY=FILE puts a course's policy in it, checked first
autograder: $(if $(POLICY),$(GRADER))
	$(Q)[ -n "$(LAB)" ] || { echo "autograder: which lab? make autograder LAB=NN" >&2; exit 2; }
	$(Q)$(if $(POLICY),$(GRADER) $(GRADE_LABS) --policy "$(POLICY)" --list > /dev/null || { echo "autograder: POLICY=$(POLICY) is refused (above): no zip written" >&2; exit 2; })
	$(Q)POLICY="$(if $(POLICY),$(abspath $(POLICY)))" sh tools/release.sh autograder $(DIST) $(VERSION_STR) $(GRADE_LABS)

# the grader alone (the autograder's setup.sh builds it so)
grader: deps $(GRADER) $(CLBUILD)

## help: this list: the targets, the variables, the grader's exit codes
help:
	@echo "usage: make [TARGET] [VARIABLE=value ...]"
	@echo
	@awk '/^## / { s = substr($$0, 4); \
	  if (match(s, /^[a-z][-a-z0-9 \/]*(\[[^]]*\])?: /)) \
	    printf "  %-20s %s\n", substr(s, 1, RLENGTH - 2), substr(s, RLENGTH + 1); \
	  else printf "  %-20s %s\n", "", s }' $(firstword $(MAKEFILE_LIST))
	@echo
	@echo "variables: LAB (01, 1, vector-add or 01-vector-add), SOLUTION (0 or 1),"
	@echo "  ARGS (options for the grader: build/bin/grade --help), POLICY (a"
	@echo "  course's policy file, for grade, bench, grade-class, autograder),"
	@echo "  CUDA_HOME, CUDNN_HOME, GPU_ARCH (\"80 90\"), CC, BUILD, V=1, WERROR=1,"
	@echo "  NO_APT=1; grade-class: SUBMISSIONS, OUT, FORCE=1, QUICK=1, GPUS, TIMEOUT, SEED,"
	@echo "  FORMAT (canvas or gradescope), ASSIGNMENT; handout: CLASSROOM=NN"
	@echo
	@echo "the grader's exit codes: 0 graded, all correct; 1 graded, a case failed;"
	@echo "  2 usage error; 3 no GPU (nothing graded); 4 forbidden library;"
	@echo "  5 the submission cannot be loaded (make check: 4 or 5 when a static"
	@echo "  check fails); 6 internal error; 7 a data file of the lab is missing or"
	@echo "  corrupt."
	@echo "  make itself exits 0 or 2: when the grader fails, make's last line"
	@echo "  ends in 'Error N' with the grader's code N; build/bin/grade NN exits"
	@echo "  with the code itself."

## docs: the HTML site (Doxygen) in build/docs/html, a student's: the
## guides, the labs, the figures and the labs' interface headers (never
## the grader's internals); warnings fail it
DOCS_INPUT = README.md $(addsuffix /README.md,$(LAB_DIRS)) \
             docs/student-tools.md docs/grading.md docs/performance.md \
             $(wildcard docs/instructor.md) \
             $(wildcard $(addsuffix /*.h,$(LAB_DIRS)))
docs:
	$(Q)command -v doxygen >/dev/null || { echo "docs: doxygen is missing: sudo apt-get install doxygen"; exit 1; }
	$(Q)rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs
	$(Q)DOCS_ROOT=$(CURDIR) DOCS_OUT=$(BUILD)/docs DOCS_INPUT="$(DOCS_INPUT)" \
	  doxygen docs/Doxyfile || { cat $(BUILD)/docs/warnings.log; exit 1; }
	$(Q)if [ -s $(BUILD)/docs/warnings.log ]; then cat $(BUILD)/docs/warnings.log; exit 1; fi
	$(Q)mine=$$(ls labs/*/*.h | xargs -n1 basename | sed 's/[.]h$$//'); \
	  inner=$$(cd $(BUILD)/docs/html && ls *_8h.html 2>/dev/null | sed -e 's/_8h[.]html$$//' -e 's/__/_/g' | \
	  grep -v -x -F "$$mine"); \
	  [ -z "$$inner" ] || { echo "docs: the site documents headers that are no lab's interface: $$inner"; exit 1; }
	$(Q)cd $(BUILD)/docs/html && links=$$(grep -oh 'href="docs/[a-z0-9_-]*[.]md#[A-Za-z0-9_-]*"' *.html | sort -u | \
	  sed -e 's|^href="docs/||' -e 's|"$$||' -e 's|[.]md#|.html#|'); \
	  sed -i -E 's|href="docs/([a-z0-9_-]+)[.]md#([A-Za-z0-9_-]+)"|href="\1.html#\2"|g' *.html; \
	  for l in $$links; do [ -f "$${l%%#*}" ] && grep -q "id=\"$${l#*#}\"" "$${l%%#*}" || \
	    { echo "docs: a link to a section the site lacks: $$l (label the heading {#$${l#*#}})"; exit 1; }; done
	$(Q)mkdir -p $(BUILD)/docs/html/img $(BUILD)/docs/html/docs && cp docs/img/*.png $(BUILD)/docs/html/img/ && \
	  cp docs/colab.ipynb $(BUILD)/docs/html/docs/
	@echo "docs: open $(BUILD)/docs/html/index.html"

## plots: draw docs/data/labNN.csv (from make bench SOLUTION=1) into docs/img
plots:
	$(Q)bash tools/plots.sh

## tables: write the speed tables of docs/performance.md and the labs'
## READMEs (between <!-- perf NN --> markers) from docs/data/ref-NN.csv
## and peers-NN.csv (from make peers LAB=NN SOLUTION=1); make test fails
## when one differs from the data
tables: $(GRADER)
	$(Q)python3 tools/perf-tables.py --grade $(GRADER)

## deps: make sure Check, cJSON and libseccomp are there (as root with apt, it says so
## and installs them; NO_APT=1: only name the command)
DEPS_RUN = CUDA_HOME=$(CUDA_HOME) CUDNN_FOUND=$(if $(CUDNN_INC),$(if $(CUDNN_SO),1)) \
	  CC="$(CC)" NO_APT="$(NO_APT)" sh tools/deps.sh
deps:
	$(Q)$(DEPS_RUN)
# what every compile waits for: the same check, once a tree (a file, so
# that `make -q` of a built target says it is up to date)
DEPS_OK := $(BUILD)/.deps-ok
$(DEPS_OK):
	$(Q)$(DEPS_RUN) && mkdir -p $(@D) && touch $@

## format / format-check: apply or verify .clang-format on our C and CUDA
FORMAT_FILES = $(wildcard common/*.[ch] common/*.cu common/tests/*.c \
               grader/*/*.[ch] grader/*/*.cu grader/tests/*.h \
               grader/tests/fixtures/*/*.cu grader/tests/fixtures/*/*.cuh \
               grader/tests/batch/*.cu \
               grader/tests/compile-fail/*.cu \
               labs/*/*.[ch] labs/*/*.cu \
               solutions/*/*.cu)
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	$(Q)clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format: clean"

## info: what the build found
info:
	@echo "nvcc:   $(NVCC) (CUDA $(NVCC_MAJOR))"
	@echo "cuDNN:  include $(or $(CUDNN_INC),NOT FOUND), library $(or $(CUDNN_SO),NOT FOUND)"
	@echo "GPU:    $(if $(HAVE_GPU),present,none)  arch flags: $(ARCH_FLAGS)"
	@echo "labs:   $(LAB_NAMES)"

## clean: remove build/
clean:
	rm -rf $(BUILD)

# ---- rules ----------------------------------------------------------------

$(BUILD)/obj/%.o: %.c | $(DEPS_OK)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.cu.o: %.cu | $(DEPS_OK)
	$(call say,NVCC,$<)
	$(Q)mkdir -p $(@D) && $(NVCC) $(NVFLAGS) -c -o $@ $<

$(LIBCORE): $(CORE_OBJ) | $(DEPS_OK)
	$(call say,AR,$@)
	$(Q)mkdir -p $(@D) && rm -f $@ && ar rcs $@ $^

$(GRADER): $(BUILD)/obj/grader/parent/main.o $(LIBCORE) | $(RUNNER) $(DEPS_OK)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(SAN) -o $@ $(filter %.o %.a,$^) $(LDLIBS)

$(RUNNER): $(RUNNER_OBJ) | $(DEPS_OK) $(AUDIT)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(SAN) -Wl,-z,relro,-z,now -o $@ $(filter %.o,$^) $(RUNNER_LIBS)

$(CLBUILD): $(call obj_of,grader/compile/build.c $(CONFINE_SRC)) | $(DEPS_OK)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(SAN) -o $@ $^ -lseccomp

# the runner's load guard, an rtld-audit library (grader/runner/audit.c):
# plain C, no sanitizer (it runs in the loader's own namespace)
$(AUDIT): grader/runner/audit.c | $(DEPS_OK)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) -std=gnu11 -O2 $(WARN) -shared -fPIC \
	  -Wl,-z,relro,-z,now -o $@ $<

# the default policy, built into the grader
$(BUILD)/gen/policy_default.c: grader/parent/policy.json
	$(Q)mkdir -p $(@D) && { echo '/* generated from grader/parent/policy.json */'; \
	  echo 'const char cl_policy_default_json[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c | $(DEPS_OK)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/selftest/%.so: grader/tests/selftest/%.c $(wildcard grader/tests/selftest/*.h) | $(DEPS_OK)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) -std=gnu11 -O1 -shared -fPIC -Wall -Wextra -Igrader \
	  -DCL_ROOT='"$(CURDIR)"' -DCL_BUILD_DIR='"$(BUILD)"' -o $@ $<

# a student's lab: exactly the file the grade builds (lab_src), rebuilt when
# it or the lab's header changes, through the confined build (cl-build: a
# scratch copy of the one file and the lab's headers, the toolkit and the
# system's headers, nothing else; the same build every way of grading
# takes); any other .cu file in the lab's folder is named, never linked in
$(BUILD)/student/%.so: $$(call lab_src,$$*) $$(wildcard labs/$$*/*.h) | $(DEPS_OK) $(CLBUILD)
	$(call say,BUILD,$@)
	$(Q)$(call note_others,$*,$<)
	$(Q)mkdir -p $(@D) && $(CLBUILD) --headers labs/$* $< $@ -- $(NVCC) $(SO_FLAGS)

$(BUILD)/solution/%.so: $$(wildcard solutions/%/*.cu) $$(wildcard labs/%/*.h) | $(DEPS_OK)
	$(call say,NVCC,$@)
	$(Q)mkdir -p $(@D) && $(NVCC) $(SO_FLAGS) -Ilabs/$* -o $@ $(filter %.cu,$^)

$(BUILD)/solution/%-4k.so: $$(wildcard solutions/%/*.cu) $$(wildcard labs/%/*.h) | $(DEPS_OK)
	$(call say,NVCC,$@)
	$(Q)mkdir -p $(@D) && $(NVCC) $(SO_FLAGS) -DMTA_PARAM_BYTES=4096 -Ilabs/$* -o $@ $(filter %.cu,$^)

# fixtures/labNN/x.cu is a known-bad submission for lab NN
$(BUILD)/fixtures/%.so: grader/tests/fixtures/%.cu $(wildcard grader/tests/fixtures/*/*.cuh) | $(DEPS_OK)
	$(call say,NVCC,$@)
	$(Q)mkdir -p $(@D) && $(NVCC) $(SO_FLAGS) $(addprefix -I,$(LAB_DIRS)) -I$(CUDA_HOME)/include $(if $(CUDNN_INC),-I$(CUDNN_INC)) -o $@ $<

$(BUILD)/tests/%: $(BUILD)/obj/%.o $(LIBCORE) | $(RUNNER) $(DEPS_OK)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(SAN) -o $@ $(filter %.o %.a,$^) $(LDLIBS) $(CHECK_LIBS)

$(BUILD)/obj/test_%.o: $$(wildcard */tests/test_$$*.c) | $(DEPS_OK)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(CFLAGS) -DCL_BUILD_DIR='"$(BUILD)"' -c -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

