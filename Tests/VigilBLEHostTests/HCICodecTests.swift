import Testing
import VigilBLE
@testable import VigilBLEHost

/// Packet layouts from the Core spec (v5.4): H4 (Vol 4 Part A 2), HCI packets (Vol 4 Part E
/// 5.4), commands and events (Vol 4 Part E 7), advertising data (Supplement Part A 1).
@Suite struct HCICodecTests {
    @Test func commandsEncodeOpcodeLittleEndianThenParameterLength() {
        #expect(HCICommand.reset.packet.h4Bytes == [0x01, 0x03, 0x0C, 0x00])
        #expect(HCICommand.leSetScanEnable(true, filterDuplicates: false).packet.h4Bytes == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        #expect(HCICommand.disconnect(handle: 0x0040).packet.h4Bytes == [0x01, 0x06, 0x04, 0x03, 0x40, 0x00, 0x13])
        #expect(HCICommand.leSetDataLength(handle: 0x0001, txOctets: 251, txTime: 2120).parameters == [0x01, 0x00, 0xFB, 0x00, 0x48, 0x08])
    }

    @Test func createConnectionCarriesThePeerAddressLeastSignificantByteFirst() throws {
        let peer = try #require(DeviceAddress("F0:F1:F2:F3:F4:F5/random"))
        let command = HCICommand.leCreateConnection(peer: peer, parameters: .fast)
        #expect(command.opcode == 0x200D)
        #expect(command.parameters.count == 25)
        #expect(Array(command.parameters[5...5]) == [0x01])
        #expect(Array(command.parameters[6..<12]) == [0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0])
        #expect(Array(command.parameters[13..<21]) == [12, 0, 12, 0, 0, 0, 0x90, 0x01])
    }

    @Test func decoderSplitsPacketsAcrossArbitraryChunkBoundaries() throws {
        let stream: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00] // Command Complete (Reset)
            + [0x02, 0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00] // ACL: ATT Exchange MTU 247
            + [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, 0x02, 0x00] // Number Of Completed Packets
        for chunk in [1, 2, 5, 100] {
            var decoder = H4Decoder()
            var packets: [HCIPacket] = []
            var index = 0
            while index < stream.count {
                packets += try decoder.feed(stream[index..<min(stream.count, index + chunk)])
                index += chunk
            }
            #expect(decoder.pendingByteCount == 0)
            #expect(packets == [
                .event(code: 0x0E, parameters: [0x01, 0x03, 0x0C, 0x00]),
                .acl(ACLPacket(handle: 0x040, boundary: .firstFlushable, data: [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00])),
                .event(code: 0x13, parameters: [0x01, 0x40, 0x00, 0x02, 0x00]),
            ])
        }
    }

    @Test func anUnknownPacketTypeIsATypedError() {
        var decoder = H4Decoder()
        #expect(throws: HostDecodingError.unknownPacketType(0x07)) { try decoder.feed([0x07, 0x00]) }
    }

    @Test func aclPacketsRoundTripWithTheirBoundaryFlags() throws {
        let packet = ACLPacket(handle: 0x0ABC, boundary: .continuing, data: [1, 2, 3])
        var decoder = H4Decoder()
        #expect(try decoder.feed(HCIPacket.acl(packet).h4Bytes) == [.acl(packet)])
        #expect(HCIPacket.acl(packet).h4Bytes == [0x02, 0xBC, 0x1A, 0x03, 0x00, 1, 2, 3])
    }

    @Test func commandCompleteAndStatusDecode() throws {
        #expect(try HCIEvent.decode(code: 0x0E, parameters: [0x01, 0x02, 0x20, 0x00, 0xFB, 0x00, 0x0F])
                == .commandComplete(credits: 1, opcode: 0x2002, returnParameters: [0x00, 0xFB, 0x00, 0x0F]))
        #expect(try HCIEvent.decode(code: 0x0F, parameters: [0x00, 0x01, 0x0D, 0x20]) == .commandStatus(status: 0, credits: 1, opcode: 0x200D))
    }

    @Test func numberOfCompletedPacketsListsHandleThenCountPerEntry() throws {
        #expect(try HCIEvent.decode(code: 0x13, parameters: [0x02, 0x40, 0x00, 0x03, 0x00, 0x41, 0x00, 0x01, 0x00])
                == .numberOfCompletedPackets([CompletedPackets(handle: 0x40, count: 3), CompletedPackets(handle: 0x41, count: 1)]))
    }

    @Test func leConnectionCompleteDecodesRoleAddressAndParameters() throws {
        let parameters: [UInt8] = [0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0,
                                   0x0C, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00]
        guard case .leConnectionComplete(let c) = try HCIEvent.decode(code: 0x3E, parameters: parameters) else {
            Issue.record("not a connection complete")
            return
        }
        #expect(c.status == 0 && c.handle == 0x40 && c.isCentral)
        #expect(c.peer.description == "F0:F1:F2:F3:F4:F5/random")
        #expect(c.interval == 12 && c.latency == 0 && c.supervisionTimeout == 400)
    }

    @Test func advertisingReportsDecodeWithTheirData() throws {
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0A, 0x18, 0x05, 0x09, 0x56, 0x69, 0x67, 0x6C]
        // Subevent 0x02, one report: ADV_IND, public address 06:05:04:03:02:01, data, RSSI −60.
        let parameters: [UInt8] = [0x02, 0x01, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, UInt8(data.count)] + data + [0xC4]
        guard case .leAdvertisingReport(let reports) = try HCIEvent.decode(code: 0x3E, parameters: parameters) else {
            Issue.record("not an advertising report")
            return
        }
        #expect(reports.count == 1)
        #expect(reports[0].rssi == -60)
        #expect(reports[0].address.text == "06:05:04:03:02:01")
        let advertised = AdvertisingData(reports[0].data)
        #expect(advertised.name == "Vigl")
        #expect(advertised.services == ["180A"])
    }

    @Test func extendedAdvertisingReportsDecodeAsAdvertisements() throws {
        // Subevent 0x0D (Vol 4 Part E 7.7.65.13): a legacy scan response from a random address.
        let data: [UInt8] = [0x03, 0x03, 0x0D, 0x18]
        let parameters: [UInt8] = [0x0D, 0x01, 0x1B, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0xC6, 0x01, 0x00, 0xFF, 0x7F, 0xCE,
                                   0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, UInt8(data.count)] + data
        guard case .leAdvertisingReport(let reports) = try HCIEvent.decode(code: 0x3E, parameters: parameters) else {
            Issue.record("not an advertising report")
            return
        }
        #expect(reports == [LEAdvertisingReport(eventType: 4, address: DeviceAddress("C6:05:04:03:02:01/random")!, data: data, rssi: -50)])
    }

    @Test func truncatedEventsThrowInsteadOfTrapping() {
        #expect(throws: HostDecodingError.self) { try HCIEvent.decode(code: 0x0E, parameters: [0x01, 0x03]) }
        #expect(throws: HostDecodingError.self) { try HCIEvent.decode(code: 0x13, parameters: [0x05, 0x40, 0x00]) }
        #expect(throws: HostDecodingError.self) { try HCIEvent.decode(code: 0x3E, parameters: [0x02, 0x01, 0x00, 0x00]) }
        #expect(throws: HostDecodingError.self) { try HCIEvent.decode(code: 0x3E, parameters: [0x01, 0x00]) }
        // Every prefix of a valid event either decodes or throws.
        let full: [UInt8] = [0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0, 0x0C, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00]
        for length in 0..<full.count { _ = try? HCIEvent.decode(code: 0x3E, parameters: Array(full.prefix(length))) }
    }

    @Test func malformedAdvertisingDataKeepsWhatCameBeforeTheFault() {
        let parsed = AdvertisingData([0x03, 0x03, 0x0D, 0x18, 0x09, 0x09, 0x41])
        #expect(parsed.services == ["180D"])
        #expect(parsed.name == nil)
        #expect(AdvertisingData([0x00, 0x02, 0x01]).services.isEmpty)
    }

    @Test func uuidsNormaliseBaseUUIDFormsAndRoundTrip() {
        #expect(UUIDCoding.uuid([0x0A, 0x18]) == "180A")
        #expect(UUIDCoding.normalized("0000180a-0000-1000-8000-00805f9b34fb") == "180A")
        let custom: BLEUUID = "7A1C0001-5A5E-4C2B-9E3A-1C2D3E4F5A6B"
        #expect(UUIDCoding.bytes(custom)?.count == 16)
        #expect(UUIDCoding.bytes(custom)?.first == 0x6B)
        #expect(UUIDCoding.uuid(UUIDCoding.bytes(custom)!) == custom)
        #expect(UUIDCoding.bytes("not a uuid") == nil)
    }

    @Test func endpointsParse() {
        #expect(HCIEndpoint("tcp:127.0.0.1:9001") == .tcp(host: "127.0.0.1", port: 9001))
        #expect(HCIEndpoint("unix:/tmp/hci.sock") == .unix(path: "/tmp/hci.sock"))
        #expect(HCIEndpoint("hci:0") == .userChannel(index: 0))
        #expect(HCIEndpoint("tcp:nohost") == nil)
        #expect(HCIEndpoint("usb:0") == nil)
        #expect(DeviceAddress("F0:F1:F2:F3:F4") == nil)
        #expect(DeviceAddress("F0:F1:F2:F3:F4:F5/elsewhere") == nil)
    }
}

@Suite struct L2CAPTests {
    @Test func aPDULongerThanTheACLBufferIsSplitAndRebuilt() throws {
        let payload = (0..<247).map { UInt8(truncatingIfNeeded: $0) }
        let fragments = L2CAPFragmenter.fragments(handle: 0x40, channel: 4, payload: payload, maximumFragment: 27)
        #expect(fragments.count == 10) // 251 bytes in 27-byte fragments
        #expect(fragments[0].boundary == .firstNonFlushable)
        #expect(fragments.dropFirst().allSatisfy { $0.boundary == .continuing })
        #expect(Array(fragments[0].data.prefix(4)) == [0xF7, 0x00, 0x04, 0x00])
        var reassembler = L2CAPReassembler()
        var pdus: [L2CAPReassembler.PDU] = []
        for fragment in fragments {
            if let pdu = try reassembler.add(fragment) { pdus.append(pdu) }
        }
        #expect(pdus == [L2CAPReassembler.PDU(channel: 4, payload: payload)])
    }

    @Test func aContinuationWithoutAStartIsAnErrorAndAFreshStartRecovers() throws {
        var reassembler = L2CAPReassembler()
        #expect(throws: HostDecodingError.self) { try reassembler.add(ACLPacket(handle: 1, boundary: .continuing, data: [1])) }
        // A start that is abandoned by a new start is dropped.
        _ = try reassembler.add(ACLPacket(handle: 1, boundary: .firstFlushable, data: [0x05, 0x00, 0x04, 0x00, 0x01]))
        let pdu = try reassembler.add(ACLPacket(handle: 1, boundary: .firstFlushable, data: [0x01, 0x00, 0x04, 0x00, 0x1E]))
        #expect(pdu == L2CAPReassembler.PDU(channel: 4, payload: [0x1E]))
        #expect(reassembler.droppedPDUs == 2)
    }

    @Test func moreBytesThanTheHeaderPromisedIsAnError() {
        var reassembler = L2CAPReassembler()
        #expect(throws: HostDecodingError.self) {
            try reassembler.add(ACLPacket(handle: 1, boundary: .firstFlushable, data: [0x01, 0x00, 0x04, 0x00, 0x1E, 0x00]))
        }
    }

    @Test func connectionParameterUpdateRequestDecodesAndIsAnswered() throws {
        // Core spec Vol 3 Part A 4.20: code 0x12, identifier, length 8, min, max, latency, timeout.
        let request = try LESignalingCommand.decode([0x12, 0x07, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01])
        #expect(try request.connectionParameterUpdate() == ConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 500))
        #expect(LESignalingCommand.connectionParameterUpdateResponse(identifier: 7, accepted: true).bytes == [0x13, 0x07, 0x02, 0x00, 0x00, 0x00])
        #expect(throws: HostDecodingError.self) { try LESignalingCommand.decode([0x12, 0x07, 0x08, 0x00, 0x18]) }
    }
}
