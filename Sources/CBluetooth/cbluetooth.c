#define _GNU_SOURCE
#include "cbluetooth.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

#define ATT_CID 4

static void set_err(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t len, const char *fmt, ...) {
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

int cbt_adapter_find(const char *name, cbt_adapter *out) {
    // hci_devid() and hci_get_route() only see adapters that are up; list them all instead, so
    // an adapter that is present but powered off is found (and can be powered up).
    int ctl = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (ctl < 0) return -errno;
    struct hci_dev_list_req *list = calloc(1, sizeof *list + HCI_MAX_DEV * sizeof(struct hci_dev_req));
    if (!list) {
        close(ctl);
        return -ENOMEM;
    }
    list->dev_num = HCI_MAX_DEV;
    if (ioctl(ctl, HCIGETDEVLIST, list) < 0) {
        int e = errno;
        free(list);
        close(ctl);
        return -e;
    }
    int found = -ENODEV;
    for (int i = 0; i < list->dev_num && found == -ENODEV; i++) {
        struct hci_dev_info di;
        memset(&di, 0, sizeof di);
        di.dev_id = list->dev_req[i].dev_id;
        if (ioctl(ctl, HCIGETDEVINFO, &di) < 0) continue;
        if (name && *name && strcmp(di.name, name) != 0) continue;
        memset(out, 0, sizeof *out);
        out->dev_id = di.dev_id;
        out->up = hci_test_bit(HCI_UP, &di.flags) ? 1 : 0;
        snprintf(out->name, sizeof out->name, "%s", di.name);
        ba2str(&di.bdaddr, out->address);
        found = 0;
    }
    free(list);
    close(ctl);
    return found;
}

int cbt_att_listen(const char *adapter_address, char *err, size_t err_len) {
    int fd = socket(PF_BLUETOOTH, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, BTPROTO_L2CAP);
    if (fd < 0) {
        set_err(err, err_len, "cannot create an L2CAP socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_l2 addr;
    memset(&addr, 0, sizeof addr);
    addr.l2_family = AF_BLUETOOTH;
    addr.l2_cid = htobs(ATT_CID);
    addr.l2_bdaddr_type = BDADDR_LE_PUBLIC;
    if (str2ba(adapter_address, &addr.l2_bdaddr) < 0) {
        set_err(err, err_len, "bad adapter address %s", adapter_address);
        close(fd);
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        set_err(err, err_len,
                "cannot bind the ATT channel on %s: %s%s", adapter_address, strerror(e),
                e == EADDRINUSE ? " (another GATT server, usually bluetoothd, holds it)" : "");
        close(fd);
        return -1;
    }
    struct bt_security sec;
    memset(&sec, 0, sizeof sec);
    sec.level = BT_SECURITY_LOW;
    setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &sec, sizeof sec);
    if (listen(fd, 8) < 0) {
        set_err(err, err_len, "cannot listen on the ATT channel: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int cbt_att_accept(int listener, char *peer, size_t peer_len) {
    struct sockaddr_l2 addr;
    socklen_t len = sizeof addr;
    memset(&addr, 0, sizeof addr);
    int fd = accept4(listener, (struct sockaddr *)&addr, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return -errno;
    char text[18];
    ba2str(&addr.l2_bdaddr, text);
    if (peer && peer_len) snprintf(peer, peer_len, "%s", text);
    return fd;
}

/// Sends one LE controller command and reads its status; returns 0, a positive HCI status, or -errno.
static int le_command(int dd, uint16_t ocf, void *param, uint8_t len) {
    uint8_t status = 0;
    struct hci_request rq;
    memset(&rq, 0, sizeof rq);
    rq.ogf = OGF_LE_CTL;
    rq.ocf = ocf;
    rq.cparam = param;
    rq.clen = len;
    rq.rparam = &status;
    rq.rlen = 1;
    if (hci_send_req(dd, &rq, 2000) < 0) return -errno;
    return status;
}

static int set_enable(int dd, uint8_t on) {
    le_set_advertise_enable_cp cp = { .enable = on };
    return le_command(dd, OCF_LE_SET_ADVERTISE_ENABLE, &cp, LE_SET_ADVERTISE_ENABLE_CP_SIZE);
}

int cbt_advertise(int dev_id, const uint8_t *adv, size_t adv_len, const uint8_t *scan,
                  size_t scan_len, uint16_t interval_units, char *err, size_t err_len) {
    if (adv_len > 31 || scan_len > 31) {
        set_err(err, err_len, "advertising payloads are at most 31 bytes");
        return -1;
    }
    int dd = hci_open_dev(dev_id);
    if (dd < 0) {
        set_err(err, err_len, "cannot open hci%d: %s", dev_id, strerror(errno));
        return -1;
    }
    set_enable(dd, 0); // parameters cannot change while advertising; "disallowed" if already off

    le_set_advertising_parameters_cp params;
    memset(&params, 0, sizeof params);
    params.min_interval = htobs(interval_units);
    params.max_interval = htobs(interval_units);
    params.advtype = 0x00;          // ADV_IND: connectable, scannable, undirected
    params.own_bdaddr_type = 0x00;  // public
    params.chan_map = 0x07;         // all three advertising channels
    params.filter = 0x00;           // anyone may scan and connect
    le_set_advertising_data_cp data;
    memset(&data, 0, sizeof data);
    data.length = (uint8_t)adv_len;
    memcpy(data.data, adv, adv_len);
    le_set_scan_response_data_cp response;
    memset(&response, 0, sizeof response);
    response.length = (uint8_t)scan_len;
    memcpy(response.data, scan, scan_len);

    const char *step = "set advertising parameters";
    int rc = le_command(dd, OCF_LE_SET_ADVERTISING_PARAMETERS, &params, LE_SET_ADVERTISING_PARAMETERS_CP_SIZE);
    if (rc == 0) {
        step = "set advertising data";
        rc = le_command(dd, OCF_LE_SET_ADVERTISING_DATA, &data, LE_SET_ADVERTISING_DATA_CP_SIZE);
    }
    if (rc == 0) {
        step = "set scan response data";
        rc = le_command(dd, OCF_LE_SET_SCAN_RESPONSE_DATA, &response, LE_SET_SCAN_RESPONSE_DATA_CP_SIZE);
    }
    if (rc == 0) {
        step = "enable advertising";
        rc = set_enable(dd, 1);
    }
    hci_close_dev(dd);
    if (rc < 0) {
        set_err(err, err_len, "hci%d: cannot %s: %s", dev_id, step, strerror(-rc));
        return -1;
    }
    if (rc > 0) {
        set_err(err, err_len, "hci%d: cannot %s: the controller answered HCI status 0x%02X%s", dev_id,
                step, rc, rc == 0x0C ? " (command disallowed: is another program advertising, e.g. bluetoothd?)" : "");
        return -1;
    }
    return 0;
}

void cbt_advertise_stop(int dev_id) {
    int dd = hci_open_dev(dev_id);
    if (dd < 0) return;
    set_enable(dd, 0);
    hci_close_dev(dd);
}

int cbt_adapter_up(int dev_id) {
    int ctl = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (ctl < 0) return -errno;
    int rc = ioctl(ctl, HCIDEVUP, dev_id);
    int e = errno;
    close(ctl);
    if (rc < 0 && e != EALREADY) return -e;
    return 0;
}

int cbt_mgmt_open(void) {
    int fd = socket(PF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_HCI);
    if (fd < 0) return -errno;
    struct sockaddr_hci addr;
    memset(&addr, 0, sizeof addr);
    addr.hci_family = AF_BLUETOOTH;
    addr.hci_dev = HCI_DEV_NONE;
    addr.hci_channel = HCI_CHANNEL_CONTROL;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int cbt_link_security(int fd, int *level, int *key_size) {
    struct bt_security sec;
    memset(&sec, 0, sizeof sec);
    socklen_t len = sizeof sec;
    if (getsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &sec, &len) < 0) return -errno;
    *level = sec.level;
    *key_size = sec.key_size;
    return 0;
}

int cbt_peer_address(int fd, uint8_t address[6], int *type) {
    struct sockaddr_l2 addr;
    memset(&addr, 0, sizeof addr);
    socklen_t len = sizeof addr;
    if (getpeername(fd, (struct sockaddr *)&addr, &len) < 0) return -errno;
    memcpy(address, &addr.l2_bdaddr, 6);
    *type = addr.l2_bdaddr_type;
    return 0;
}
