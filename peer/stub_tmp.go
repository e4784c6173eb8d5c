package peer

func ParseWapiti(data []byte) (Model, error) { return nil, nil }
