#ifndef CBLUETOOTH_H
#define CBLUETOOTH_H

#include <stddef.h>
#include <stdint.h>

/// A thin, version-neutral layer over BlueZ's kernel sockets (libbluetooth): what Swift cannot
/// import directly (BDADDR_ANY, htobs, packed HCI command structs) stays on this side.

/// What the daemon needs to know about an adapter.
typedef struct {
    int dev_id;          ///< hciN's N
    int up;              ///< 1 when the adapter is powered up (HCI_UP)
    char name[16];       ///< "hci0"
    char address[18];    ///< "00:AA:01:00:00:00"
} cbt_adapter;

/// Finds an adapter by name ("hci0"), or the first one when name is NULL or empty.
/// Returns 0 and fills *out, or -errno (-ENODEV: no such adapter; -EAFNOSUPPORT: no Bluetooth in
/// this kernel).
int cbt_adapter_find(const char *name, cbt_adapter *out);

/// Listens for LE connections on the ATT fixed channel (CID 4) of the adapter with this address.
/// Non-blocking, close-on-exec. Returns the socket, or -1 with a sentence in err.
int cbt_att_listen(const char *adapter_address, char *err, size_t err_len);

/// Accepts one ATT connection (non-blocking, close-on-exec); writes the peer's address into
/// peer (at least 18 bytes). Returns the socket or -errno.
int cbt_att_accept(int listener, char *peer, size_t peer_len);

/// Sets connectable undirected advertising with these payloads (each at most 31 bytes) and
/// interval (units of 0.625 ms), and enables it. Returns 0, or -1 with a sentence in err.
int cbt_advertise(int dev_id, const uint8_t *adv, size_t adv_len, const uint8_t *scan,
                  size_t scan_len, uint16_t interval_units, char *err, size_t err_len);

/// Powers an adapter up (HCIDEVUP). Returns 0 (also when it already was up) or -errno.
int cbt_adapter_up(int dev_id);

/// Turns advertising off (errors ignored: the adapter may already be gone).
void cbt_advertise_stop(int dev_id);

/// Opens the kernel's Bluetooth management channel (HCI_CHANNEL_CONTROL, as bluetoothd and
/// btmgmt use it): non-blocking, close-on-exec. Returns the socket or -errno (-EPERM without
/// CAP_NET_ADMIN).
int cbt_mgmt_open(void);

/// The security of the link under a connected L2CAP socket: level 1 (open) to 4 (LE Secure
/// Connections, authenticated), and the encryption key's size in octets. 0, or -errno.
int cbt_link_security(int fd, int *level, int *key_size);

/// The peer's address (six octets, least significant first) and its LE type (1 public,
/// 2 random) as the kernel names it now: its identity address once its IRK is known.
/// 0, or -errno.
int cbt_peer_address(int fd, uint8_t address[6], int *type);

#endif
