"""leapp-codemod: scan, generate and run LEAPP integrations for PyTorch policy pipelines."""

__version__ = "0.1.0"
