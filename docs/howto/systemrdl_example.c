/* The register map as C: offsets from the header PeakRDL wrote
 * (permnet hil regmap --format cheader).  On a CPU that maps the bridge's
 * registers at BASE, the same struct is the driver:
 *     volatile permnet_hil_network_t *hil = (void *)BASE;
 *     hil->netplanes.swap_at = 1000;
 */
#include <stddef.h>
#include <stdio.h>

#include "permnet_hil_network.h"

int main(void) {
    printf("netgen.perm[3]      0x%05zx\n", offsetof(permnet_hil_network_t, netgen.perm[3]));
    printf("netplanes.swap_at   0x%05zx\n", offsetof(permnet_hil_network_t, netplanes.swap_at));
    printf("netplanes.plane_win 0x%05zx\n", offsetof(permnet_hil_network_t, netplanes.plane_win));
    return 0;
}
