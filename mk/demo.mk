# Demo of the whole workflow on the bundled example: exactly the four lines README.md quotes under
# "From scan to a validated export" (tests/test_doc_examples.py checks that the two agree).
# Include from the top-level Makefile:  include mk/demo.mk
DEMO_APP_DIR ?= examples/quickstart
LEAPP_CODEMOD ?= $(CURDIR)/.venv/bin/leapp-codemod

.PHONY: demo demo-clean

demo:
	cd $(DEMO_APP_DIR) && $(LEAPP_CODEMOD) scan .
	cd $(DEMO_APP_DIR) && $(LEAPP_CODEMOD) generate .
	cd $(DEMO_APP_DIR) && $(LEAPP_CODEMOD) run leapp_integration.py

demo-clean:
	rm -rf $(DEMO_APP_DIR)/leapp_integration.py $(DEMO_APP_DIR)/leapp-out
