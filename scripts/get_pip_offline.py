"""Stand-in for ansible-test's downloaded get-pip bootstrap script.

ansible-test fetches get-pip-<version>.py from a host this network cannot
reach; it runs the cached copy with pip's install arguments instead. This
script bootstraps pip with ensurepip and installs the same arguments from
the package index that is reachable. Setup copies it into
~/.ansible/test/cache/get_pip_<version>.py.
"""
import subprocess
import sys

subprocess.check_call([sys.executable, "-m", "ensurepip", "--upgrade"])
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
subprocess.check_call([sys.executable, "-m", "pip", "install"] + args)
