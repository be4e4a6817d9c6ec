FROM golang:1.26
WORKDIR /gostripped
COPY . .
RUN go build -o server .
ENTRYPOINT ["./server"]
CMD ["-prefork"]
