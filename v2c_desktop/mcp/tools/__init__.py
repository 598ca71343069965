"""The tool groups; each module registers its tools with `register(server, deps)`."""
