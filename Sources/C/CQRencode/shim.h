// libqrencode, for garage-pins to draw the HomeKit setup code as a QR code in the terminal.
#include <qrencode.h>
