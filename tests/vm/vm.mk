# SPDX-License-Identifier: MIT
#
# tests/vm/vm.mk - the shell helpers the VM shell tests source
# (". fbtest.sh"), put on the guest's PATH with the programs.
VM_BINS		+= tests/vm/lib/fbtest.sh
