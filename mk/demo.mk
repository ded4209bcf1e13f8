# Demo of the whole workflow on the bundled example: scan, generate, run.
# Include from the top-level Makefile:  include mk/demo.mk
DEMO_APP_DIR ?= examples/quickstart
DEMO_OUT ?= demo-out
LEAPP_CODEMOD ?= $(CURDIR)/.venv/bin/leapp-codemod
DEMO_ENTRY ?= robot.policy:NavigationPolicy.act

.PHONY: demo demo-clean

demo:
	@mkdir -p $(DEMO_OUT)
	cd $(DEMO_APP_DIR) && $(LEAPP_CODEMOD) scan robot --entry $(DEMO_ENTRY) --exit-zero
	cd $(DEMO_APP_DIR) && $(LEAPP_CODEMOD) generate robot --entry $(DEMO_ENTRY) --driver main.py \
		-o $(CURDIR)/$(DEMO_OUT)/integration.py --force
	cd $(DEMO_APP_DIR) && $(LEAPP_CODEMOD) run $(CURDIR)/$(DEMO_OUT)/integration.py --out $(CURDIR)/$(DEMO_OUT)/leapp

demo-clean:
	rm -rf $(DEMO_OUT)
