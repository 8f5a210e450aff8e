module regdesk

go 1.26
