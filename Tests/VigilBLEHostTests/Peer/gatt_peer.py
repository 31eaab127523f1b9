# A GATT peer for VigilBLEHost's tests, on Bumble (https://github.com/google/bumble, Apache-2.0):
# two virtual controllers on one Bumble LocalLink. Controller C0 is the Swift host's, reached as
# H4 over tcp-server:127.0.0.1:PORT (loopback only); C1 carries a Bumble device that advertises
# one 128-bit service and serves it: RX (write, write without response) echoes every value as
# a notification on TX and its first 4 bytes as an indication on IND (the value DROP makes the
# peer drop the link instead); LONG is a 300-byte
# readable value; REFUSE answers every write with application error 0x80; 180A/2A29 is a short
# readable value. Prints READY when advertising, and one
# line per write, connection, MTU change and disconnection. Usage: gatt_peer.py PORT
import asyncio, signal, sys
# The test process may start us with signals blocked; SIGTERM must stop us.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
from bumble.controller import Controller
from bumble.link import LocalLink
from bumble.device import Device
from bumble.host import Host
from bumble.transport import open_transport
from bumble.transport.common import AsyncPipeSink
from bumble.gatt import Service, Characteristic, CharacteristicValue
from bumble import hci
from bumble.core import AdvertisingData, UUID
from bumble.att import ATT_Error

SERVICE = '7A1C0001-5A5E-4C2B-9E3A-1C2D3E4F5A6B'
RX = '7A1C0002-5A5E-4C2B-9E3A-1C2D3E4F5A6B'
TX = '7A1C0003-5A5E-4C2B-9E3A-1C2D3E4F5A6B'
IND = '7A1C0004-5A5E-4C2B-9E3A-1C2D3E4F5A6B'
LONG = '7A1C0005-5A5E-4C2B-9E3A-1C2D3E4F5A6B'
REFUSE = '7A1C0006-5A5E-4C2B-9E3A-1C2D3E4F5A6B'

async def main():
    port = int(sys.argv[1])
    link = LocalLink()
    transport = await open_transport(f'tcp-server:127.0.0.1:{port}')
    c0 = Controller('C0', host_source=transport.source, host_sink=transport.sink, link=link,
                    public_address='F0:F1:F2:F3:F4:F0')
    c1 = Controller('C1', link=link, public_address='F0:F1:F2:F3:F4:F5')
    host = Host(c1, AsyncPipeSink(c1))
    device = Device(name='BumblePeer', address=hci.Address('F0:F1:F2:F3:F4:F5'), host=host)
    written = []
    tx = Characteristic(TX, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b'')
    ind = Characteristic(IND, Characteristic.Properties.INDICATE, Characteristic.READABLE, b'')
    def on_write(connection, value):
        written.append(bytes(value))
        print('WRITE', len(value), bytes(value[:8]).hex(), flush=True)
        if bytes(value) == b'DROP':
            # Drop the link from this side, as a peer that resets would.
            asyncio.ensure_future(connection.disconnect())
            return
        async def echo():
            await device.notify_subscribers(tx, bytes(value))
            await device.indicate_subscribers(ind, bytes(value[:4]))
        asyncio.ensure_future(echo())
    rx = Characteristic(RX, Characteristic.Properties.WRITE | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
                        Characteristic.WRITEABLE, CharacteristicValue(write=on_write))
    long_value = bytes(range(256)) * 2
    longc = Characteristic(LONG, Characteristic.Properties.READ, Characteristic.READABLE, long_value[:300])
    def refuse(connection, value):
        raise ATT_Error(0x80)  # an application error
    refusing = Characteristic(REFUSE, Characteristic.Properties.WRITE, Characteristic.WRITEABLE,
                              CharacteristicValue(write=refuse))
    device.add_service(Service(SERVICE, [rx, tx, ind, longc, refusing]))
    device.add_service(Service('180A', [Characteristic('2A29', Characteristic.Properties.READ, Characteristic.READABLE, b'Vigil')]))
    device.on('connection', lambda c: (print('CONNECTED', c, flush=True),
                                       c.on('connection_att_mtu_update', lambda: print('MTU', c.att_mtu, flush=True)),
                                       c.on('disconnection', lambda r: print('DISCONNECTED', r, flush=True))))
    await device.power_on()
    device.advertising_data = bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.COMPLETE_LOCAL_NAME, b'BumblePeer'),
        (AdvertisingData.INCOMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS, bytes(UUID(SERVICE))),
    ]))
    await device.start_advertising(auto_restart=True)
    print('READY', flush=True)
    await asyncio.get_running_loop().create_future()

asyncio.run(main())
