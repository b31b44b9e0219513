# Edits the protected header that the kernel and the oracle share.
printf '#define AR_CHEAT_TOUCHED 1\n' >> "$AUTORESEARCH_PACKAGE_DIR/matmul_params.h"
