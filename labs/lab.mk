# make in a lab's folder: the course's Makefile, for this lab. Each lab's
# Makefile is one line, "include ../lab.mk": "make grade" here is
# "make grade LAB=NN" at the root (and so is every other target: check,
# memcheck, profile, bench, peers, demo). Paths given on the command line
# are read from the root.
LAB_HERE := $(firstword $(subst -, ,$(notdir $(CURDIR))))
COURSE   := $(abspath $(CURDIR)/../..)

.PHONY: lab-default
lab-default:
	@$(MAKE) --no-print-directory -C $(COURSE) LAB=$(or $(LAB),$(LAB_HERE))

# the makefiles themselves are not targets
Makefile ../lab.mk: ;

%:
	@$(MAKE) --no-print-directory -C $(COURSE) $@ LAB=$(or $(LAB),$(LAB_HERE))
