// How each part of the schema is sanitized. Identifiers and names are single-line fields;
// crash reasons and log messages keep their newlines.

extension Event {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        app.sanitize(&pass)
        device.sanitize(&pass)
        pass.line(&context.page)
        pass.line(&context.appState)
        pass.line(&context.network)
        pass.line(&user)
        pass.dictionary(&tags, maxCount: pass.limits.maxTags, maxKeyBytes: pass.limits.maxTagKeyBytes,
                        maxValueBytes: pass.limits.maxTagValueBytes)
        if var list = images {
            pass.bound(&list, to: pass.limits.maxImages)
            for index in list.indices { list[index].sanitize(&pass) }
            images = list
        }
        switch payload {
        case .hang(var body): body.sanitize(&pass); payload = .hang(body)
        case .frames(var body): body.sanitize(&pass); payload = .frames(body)
        case .launch(var body): body.sanitize(&pass); payload = .launch(body)
        case .network(var body): body.sanitize(&pass); payload = .network(body)
        case .crash(var body): body.sanitize(&pass); payload = .crash(body)
        case .resource(var body): body.sanitize(&pass); payload = .resource(body)
        case .span(var body): body.sanitize(&pass); payload = .span(body)
        case .log(var body): body.sanitize(&pass); payload = .log(body)
        case .session(var body): body.sanitize(&pass); payload = .session(body)
        }
    }
}

extension AppInfo {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.line(&id); pass.line(&version); pass.line(&build)
    }
}

extension DeviceInfo {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.line(&model); pass.line(&os); pass.line(&osVersion); pass.line(&arch)
    }
}

extension ImageInfo {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.line(&name); pass.line(&id); pass.line(&arch); pass.line(&path)
    }
}

extension HangPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.number(&durationMs); pass.number(&thresholdMs); pass.number(&cpuPercent)
        pass.line(&runLoopActivity)
        pass.bound(&stacks, to: pass.limits.maxStacks)
        for index in stacks.indices { pass.stack(&stacks[index].frames) }
        pass.stack(&hotStack)
    }
}

extension FramesPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.line(&page)
        pass.number(&fps); pass.number(&refreshRate); pass.number(&durationMs)
        pass.stack(&stack)
        if var list = frozenFrames {
            pass.bound(&list, to: pass.limits.maxItems)
            for index in list.indices {
                pass.number(&list[index].durationMs)
                pass.stack(&list[index].stack)
            }
            frozenFrames = list
        }
    }
}

extension LaunchPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.number(&preMainMs); pass.number(&mainToDidFinishMs); pass.number(&ttidMs); pass.number(&ttfdMs)
        pass.line(&traceId)
        if var list = tasks {
            pass.bound(&list, to: pass.limits.maxItems)
            for index in list.indices { list[index].sanitize(&pass) }
            tasks = list
        }
    }
}

extension NetworkPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.line(&method); pass.line(&urlTemplate); pass.line(&host); pass.text(&error)
        pass.line(&`protocol`); pass.line(&traceId); pass.line(&spanId)
        pass.number(&timings.dns); pass.number(&timings.connect); pass.number(&timings.tls)
        pass.number(&timings.request); pass.number(&timings.ttfb); pass.number(&timings.response)
        pass.number(&timings.total)
        if var headers = requestHeaders {
            pass.dictionary(&headers, maxCount: pass.limits.maxTags, maxKeyBytes: pass.limits.maxTagKeyBytes,
                            maxValueBytes: pass.limits.maxTagValueBytes)
            requestHeaders = headers
        }
        if var headers = responseHeaders {
            pass.dictionary(&headers, maxCount: pass.limits.maxTags, maxKeyBytes: pass.limits.maxTagKeyBytes,
                            maxValueBytes: pass.limits.maxTagValueBytes)
            responseHeaders = headers
        }
    }
}

extension CrashPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.line(&signal); pass.line(&code); pass.line(&terminationReason)
        if var value = exception {
            pass.line(&value.type)
            pass.text(&value.reason)
            if var frames = value.frames {
                pass.stack(&frames)
                value.frames = frames
            }
            exception = value
        }
        pass.bound(&threads, to: pass.limits.maxThreads)
        for index in threads.indices {
            pass.line(&threads[index].name)
            pass.stack(&threads[index].frames)
        }
        if var registers = registers {
            if registers.count > pass.limits.maxRegisters {
                let keep = registers.sorted { $0.key < $1.key }.prefix(pass.limits.maxRegisters)
                registers = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
                pass.report.collectionsTruncated += 1
            }
            var cleaned: [String: Address] = [:]
            for (key, value) in registers {
                var name = key
                pass.clean(&name, maxBytes: 32, multiline: false)
                if !name.isEmpty { cleaned[name] = value }
            }
            self.registers = cleaned
        }
    }
}

extension ResourcePayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.number(&cpuPercent)
        if var list = threads {
            pass.bound(&list, to: pass.limits.maxThreads)
            for index in list.indices {
                pass.line(&list[index].name)
                pass.number(&list[index].cpuPercent)
            }
            threads = list
        }
        if var block = cpuBlock {
            pass.number(&block.windowMs); pass.number(&block.averagePercent); pass.number(&block.thresholdPercent)
            cpuBlock = block
        }
    }
}

extension SpanPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.line(&traceId); pass.line(&spanId); pass.line(&parentSpanId); pass.line(&name)
        pass.text(&statusMessage)
        pass.attributes(&attributes)
    }
}

extension LogPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.text(&message)
        pass.attributes(&attributes)
    }
}

extension SessionPayload {
    mutating func sanitize(_ pass: inout SanitizerPass) {
        pass.number(&durationMs); pass.number(&foregroundMs); pass.line(&lastAppState)
        pass.bound(&reasons, to: pass.limits.maxItems)
        for index in reasons.indices { pass.line(&reasons[index]) }
    }
}
