import Foundation

/// Where two values that should be equal differ: the path to the first differing leaf and both
/// leaves (dates as seconds since 1970 with every digit, dictionaries compared in key order),
/// or nil when every leaf matches. Makes a broken round-trip invariant readable in the crash
/// log instead of two long descriptions that look the same.
public func firstDifference(_ lhs: Any, _ rhs: Any, path: String = "") -> String? {
    let place = path.isEmpty ? "the value" : path
    if let left = lhs as? Date, let right = rhs as? Date {
        return left == right ? nil
            : "\(place): \(left.timeIntervalSince1970) s vs \(right.timeIntervalSince1970) s"
    }
    let left = Mirror(reflecting: lhs)
    let right = Mirror(reflecting: rhs)
    if left.children.isEmpty || right.children.isEmpty || left.displayStyle != right.displayStyle {
        let leftText = String(reflecting: lhs)
        let rightText = String(reflecting: rhs)
        return leftText == rightText ? nil : "\(place): \(leftText) vs \(rightText)"
    }
    var leftChildren = Array(left.children)
    var rightChildren = Array(right.children)
    if left.displayStyle == .dictionary || left.displayStyle == .set {
        leftChildren.sort { String(reflecting: $0.value) < String(reflecting: $1.value) }
        rightChildren.sort { String(reflecting: $0.value) < String(reflecting: $1.value) }
    }
    guard leftChildren.count == rightChildren.count else {
        return "\(place): \(leftChildren.count) vs \(rightChildren.count) elements"
    }
    for (index, (leftChild, rightChild)) in zip(leftChildren, rightChildren).enumerated() {
        let label = leftChild.label ?? "[\(index)]"
        if leftChild.label != rightChild.label { return "\(place): case \(label) vs \(rightChild.label ?? "?")" }
        if let difference = firstDifference(leftChild.value, rightChild.value, path: path + "." + label) {
            return difference
        }
    }
    return nil
}
