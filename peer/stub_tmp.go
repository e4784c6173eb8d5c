package peer

func ParseWapiti(data []byte) (Model, error)     { return nil, nil }
func ParseCRFPPText(data []byte) (Model, error)   { return nil, nil }
func ParseCRFPPBinary(data []byte) (Model, error) { return nil, nil }
