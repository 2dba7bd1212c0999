# lit configuration for the pnacl toolchain's FileCheck tests.
#
# The programs come from PNACL_BIN (set by scripts/test) or target/release; FileCheck and
# the other LLVM tools from toolchain.toml. Tests that need the real pexes find them in
# ../shared/pexes beside the checkout (%pexes).
import os
import tomllib

import lit.formats

config.name = 'pnacl'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.test', '.ll', '.txt', '.c', '.cpp']
config.excludes = ['Inputs', 'lit.cfg.py']
config.test_source_root = os.path.dirname(__file__)

root = os.path.dirname(config.test_source_root)
with open(os.path.join(root, 'toolchain.toml'), 'rb') as f:
    toolchain = tomllib.load(f)

bindir = os.environ.get('PNACL_BIN', os.path.join(root, 'target', 'release'))
llvm_bin = os.path.dirname(toolchain['llvm']['filecheck'])
config.environment['PATH'] = os.pathsep.join([bindir, llvm_bin, os.environ.get('PATH', '')])
for var in ['HOME', 'TMPDIR', 'LANG']:
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(('%pexes', os.path.join(os.path.dirname(root), 'shared', 'pexes')))
config.substitutions.append(('%inputs', os.path.join(config.test_source_root, 'Inputs')))
config.substitutions.append(('%bindir', bindir))
config.substitutions.append(('%root', root))
# C and C++ built into a pexe and run on each architecture, against the same source built
# natively.
config.substitutions.append(('%c-vs-native', 'python3 ' + os.path.join(root, 'scripts', 'c_vs_native.py')))
